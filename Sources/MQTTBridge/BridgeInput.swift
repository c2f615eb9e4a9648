import POSIXSupport
import StationClient

/// What the bridge's rules (`BridgeRules`) are told: the daemon's feed, the broker link's reports, the replayer's
/// progress, the clock's ticks and the state file's saves.
enum BridgeInput: Sendable {
    case daemon(StationUpdate)
    /// Once a second.
    case tick
    /// `seqFile` was asked to save `seq` (a `save` effect); `failure` when it could not.
    case saved(UInt64, failure: Errno?)
    /// `version`: "MQTT 5" or "MQTT 3.1.1".
    case brokerConnected(session: Int, address: String, version: String, receiveMaximum: Int)
    /// `refusal`: the MQTT 5 reason in words when the broker refused the message.
    case brokerAcknowledged(mid: Int32, session: Int, refusal: String?)
    case brokerUnavailable(reason: String, next: String, retryIn: Duration)
    case brokerMessage(topic: String, payload: [UInt8], retained: Bool)
    case replayStarted(ReplayRequest)
    case replayRepublished
    case replayAnswered
    /// The bridge is stopping.
    case stopped
}

/// When an input came: the wall clock (an event's `at` and a held scan's deadline are wall time) and the monotonic one.
struct BridgeTime: Sendable {
    /// Seconds since the epoch.
    let wall: Int64
    let monotonic: ContinuousClock.Instant
}
