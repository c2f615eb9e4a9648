import POSIXSupport

public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Retention already removed events after `since`; the oldest kept is `oldestAvailable`.
    case notAvailable(since: UInt64, oldestAvailable: UInt64)
    /// A system call failed; `errno` is kept as the kernel gave it.
    case system(operation: String, path: String, errno: Errno)
    case closed

    public var description: String {
        switch self {
        case .notAvailable(let since, let oldest):
            return "events after \(since) are no longer in the journal (the oldest kept is \(oldest))"
        case .system(let operation, let path, let code):
            return "\(operation) \(path): \(code)"
        case .closed:
            return "the journal is closed"
        }
    }
}
