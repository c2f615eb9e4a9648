import Logging

/// What the bridge's rules ask the runtime (`Bridge`) to carry out, in the order given.
enum BridgeEffect: Equatable, Sendable {
    case log(Logger.Severity, String)
    /// systemd's `STATUS=`.
    case systemdStatus(String)
    /// The retained status, on the station's status topic.
    case publishStatus(String)
    /// A `status` request to the daemon (its answer comes back as a `daemon` input).
    case askDaemonStatus
    /// The daemon named the station: the broker link starts with these topics (the client id is the station's level).
    case startLink(Topics)
    /// Follow the daemon again from this seq: what the broker did not acknowledge is read and published again.
    case resend(from: UInt64)
    /// An event (or seqs retention removed) to publish once the window admits it; they come last, in seq order.
    case publish(ChipScanHold.Release)
    /// A replay request's answer, at once.
    case answerReplay(ReplayAnswer)
    /// A replay request for the replayer, in its turn.
    case serveReplay(ReplayRequest)
    /// The acknowledged seq to the state file (its outcome comes back as `saved`).
    case save(UInt64)
}
