import Glibc
import StationClient

/// Why the client gives up with exit status 3: the daemon is unreachable or broke the protocol.
struct DaemonFailure: Error {
    let message: String

    init(message: String) {
        self.message = message
    }

    /// A connection to `path` that failed or ended: what went wrong, and for a socket that cannot be reached, what to
    /// check next.
    init(_ error: StationClientError, path: String) {
        switch error {
        case .system(operation: "connect", _, let code) where code.rawValue == ENAMETOOLONG:
            message = "cannot reach the daemon at \(path): the path is too long"
        case .system(operation: "connect", _, let code) where code.rawValue == EACCES:
            message = "cannot reach the daemon at \(path): \(code); the socket is open to root and the sealtrust-scand group only"
        case .system(operation: "connect", _, let code):
            message = "cannot reach the daemon at \(path): \(code); is the daemon running? see systemctl status sealtrust-scand"
        case .closed:
            message = "lost the connection to the daemon"
        default:
            message = error.description
        }
    }
}
