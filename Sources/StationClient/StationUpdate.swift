/// What a `StationFeed` yields.
public enum StationUpdate: Sendable {
    /// A connection was made and `replay` from `since` asked.
    case connected(StationHello, since: UInt64)
    /// A journaled event: seq order, each seq once per feed (barring `restart`).
    case event(StationLine)
    /// The replay reached what the journal held at connect: what follows is live.
    case caughtUp
    /// These events were removed by the journal's retention before they were read; the feed goes on after them.
    case lost(ClosedRange<UInt64>)
    /// The daemon's newest seq is below the one asked for (its journal was replaced): the feed starts again at 0.
    case journalBehind(asked: UInt64, newest: UInt64)
    /// An answer on the feed's connection that is not an event (`status`, `ack`, `error`).
    case answer(StationLine)
    /// The connection failed or ended; the next attempt comes after `retryIn`.
    case disconnected(StationClientError, retryIn: Duration)
}
