#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on the way to the service manager, with the errno that explains it.
public struct SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// Captures the thread's errno right after `operation` failed.
    static func last(_ operation: String) -> SystemdError {
        SystemdError(operation: operation, errno: Glibc.errno)
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(errno)))"
    }
}
