extension Duration {
    /// Whole milliseconds, the fraction dropped: what a measured latency reports.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds rounded up, for a timeout that must not end early (poll, PC/SC).
    public var roundedUpMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
