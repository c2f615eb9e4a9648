import Glibc

/// An errno value, kept as a value so a failure can be carried and described after other calls ran.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's errno: read it right after the call that failed.
    public static var current: Errno { Errno(Glibc.errno) }

    public var description: String { String(cString: strerror(rawValue)) }
}
