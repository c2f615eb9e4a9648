/// Where a `replay` meets the live events, for a client that asks `replay` from the last seq it took after each
/// connect (`StationFeed`, `sealtrust-scanctl watch --reconnect`): each event once, in order.
///
/// A live event that the daemon sends between its `hello` and that `replay` comes again in the replay, in its place:
/// until the replay reaches the `hello`'s `last_seq`, a seq past the next one is such a copy, and is skipped. After
/// that, a seq past the next one follows a gap (events retention removed).
public struct ReplaySeam: Sendable {
    /// What one event's seq is to the client.
    public enum Take: Equatable, Sendable {
        /// Taken already, or a live copy the replay brings again: skipped.
        case skip
        /// The next one.
        case next
        /// Taken after these seqs, which will never come.
        case afterGap(ClosedRange<UInt64>)
    }

    /// The last seq taken: the next `replay` asks from it.
    public private(set) var lastSeq: UInt64
    /// The daemon's `last_seq` in its latest `hello`.
    public private(set) var newestAtConnect: UInt64

    public init(since: UInt64) {
        lastSeq = since
        newestAtConnect = since
    }

    /// Takes a new connection's `last_seq`; false when the journal ends before `lastSeq`: it is a new one, whose old
    /// seqs are not the ones taken (the client says where it goes on with `resume(after:)`).
    public mutating func connected(newest: UInt64) -> Bool {
        newestAtConnect = newest
        return newest >= lastSeq
    }

    /// Goes on after `seq`: a restart, a new journal, events retention removed.
    public mutating func resume(after seq: UInt64) {
        lastSeq = seq
    }

    /// Whether the replay reached what the journal held at connect: what follows is live.
    public var isCaughtUp: Bool { lastSeq >= newestAtConnect }

    public mutating func take(_ seq: UInt64) -> Take {
        guard seq > lastSeq else { return .skip }
        guard seq > lastSeq + 1 else {
            lastSeq = seq
            return .next
        }
        if lastSeq < newestAtConnect { return .skip }
        defer { lastSeq = seq }
        return .afterGap(lastSeq + 1...seq - 1)
    }
}
