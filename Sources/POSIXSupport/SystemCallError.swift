/// A system call that failed: what was attempted (with its object, such as a path) and the errno it left.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    public let errno: Errno

    public init(_ operation: String, errno: Errno = .current) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation): \(errno)" }
}
