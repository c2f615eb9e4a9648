/// A descriptor with one owner, closed when the owner ends: no path out of a scope, an error's included, needs a
/// close of its own, and none can close it twice.
public struct OwnedDescriptor: ~Copyable, Sendable {
    public let rawValue: Int32

    /// Takes ownership of `rawValue`, an open descriptor.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit {
        FileDescriptor.close(rawValue)
    }

    /// Hands the descriptor to a caller that closes it itself; this owner then closes nothing.
    public consuming func release() -> Int32 {
        let rawValue = rawValue
        discard self
        return rawValue
    }
}
