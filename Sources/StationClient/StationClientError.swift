import POSIXSupport

/// Why a connection to the daemon failed or ended; errno kept as the kernel gave it.
public enum StationClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed (`connect` ECONNREFUSED or ENOENT: the daemon is not running).
    case system(operation: String, path: String, errno: Errno)
    /// The daemon closed the connection (it stopped, or dropped a client that read too slowly).
    case closedByDaemon
    /// A line from the daemon was longer than `StationConnection.maximumLineBytes`.
    case lineTooLong(bytes: Int)
    /// The daemon sent something protocol 1 does not allow; `line` is cut to 200 characters.
    case protocolBroken(line: String)
    /// The daemon refused the connection (`error` instead of `hello`, such as too many clients).
    case refused(code: String, detail: String)
    /// No `hello` within the time given.
    case noHello(seconds: Int)
    /// The socket could not take a command at once: the daemon is not reading.
    case daemonNotReading
    /// `close()` was called or the task was cancelled.
    case closed

    public var description: String {
        switch self {
        case .system(let operation, let path, let code):
            return "\(operation) \(path): \(code)"
        case .closedByDaemon: return "the daemon closed the connection"
        case .lineTooLong(let bytes): return "the daemon sent a line of more than \(bytes) bytes"
        case .protocolBroken(let line): return "the daemon broke the protocol: \(line)"
        case .refused(let code, let detail): return "the daemon refused the connection: \(code): \(detail)"
        case .noHello(let seconds): return "the daemon did not say hello within \(seconds) s"
        case .daemonNotReading: return "the daemon does not read its socket"
        case .closed: return "the connection was closed"
        }
    }
}
