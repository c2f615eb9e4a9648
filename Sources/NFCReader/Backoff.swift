/// Waits between attempts to reach pcscd: 100 ms, doubling up to 2 s, back to 100 ms once it answers.
struct Backoff {
    static let first: Duration = .milliseconds(100)
    static let longest: Duration = .seconds(2)

    private(set) var next = Backoff.first

    mutating func take() -> Duration {
        defer { next = min(next * 2, Self.longest) }
        return next
    }

    mutating func reset() {
        next = Self.first
    }
}
