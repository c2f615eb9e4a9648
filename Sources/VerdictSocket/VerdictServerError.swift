import POSIXSupport

public enum VerdictServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process answers on the socket: a second daemon must not take it over.
    case alreadyServed(path: String)
    case notASocket(path: String)
    case pathTooLong(path: String)
    case alreadyStarted
    case system(operation: String, path: String, errno: Errno)

    public var description: String {
        switch self {
        case .alreadyServed(let path):
            return "another daemon is already listening on \(path)"
        case .notASocket(let path):
            return "\(path) exists and is not a socket"
        case .pathTooLong(let path):
            return "socket path too long (at most 107 bytes): \(path)"
        case .alreadyStarted:
            return "the verdict server is already started"
        case .system(let operation, let path, let code):
            return "\(operation) \(path): \(code)"
        }
    }
}
