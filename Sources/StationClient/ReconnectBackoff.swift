/// Waits between reconnection attempts: 1 s, doubling up to 60 s, each drawn at random
/// from 80 % to 120 % of its step so that a fleet that lost its broker at once does not return at once.
public struct ReconnectBackoff: Sendable {
    public let first: Duration
    public let longest: Duration
    private var step: Duration

    public init(first: Duration = .seconds(1), longest: Duration = .seconds(60)) {
        self.first = first
        self.longest = longest
        step = first
    }

    /// The next wait, with its jitter; each call doubles the step up to `longest`.
    public mutating func next() -> Duration {
        defer { step = min(step * 2, longest) }
        return step * Double.random(in: 0.8...1.2)
    }

    /// Back to `first`, once a connection proved good.
    public mutating func reset() {
        step = first
    }
}
