import Dispatch

extension Duration {
    /// Whole milliseconds, rounded up, for PC/SC timeouts.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(wholeMilliseconds)) }
}
