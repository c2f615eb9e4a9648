/// The daemon's two times, read from one place so that a test can set both: the monotonic one measures durations
/// (latency, uptime, log intervals, cache ages), the wall one is what events and `status` show.
public struct DaemonClock: Sendable {
    public let monotonic: @Sendable () -> ContinuousClock.Instant
    /// Seconds since the epoch and the same moment as RFC 3339 text (`Timestamp`).
    public let wall: @Sendable () -> (seconds: Double, text: String)

    public init(monotonic: @escaping @Sendable () -> ContinuousClock.Instant,
                wall: @escaping @Sendable () -> (seconds: Double, text: String)) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// The system's clocks: CLOCK_MONOTONIC (as `ContinuousClock`) and CLOCK_REALTIME.
    public static let system = DaemonClock(monotonic: { .now }, wall: { Timestamp.now() })
}
