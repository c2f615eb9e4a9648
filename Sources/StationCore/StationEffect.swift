import DaemonConfiguration
import JSONCore
import Logging
import ScanJournal
import StationWire
import VerdictSocket

/// What a station asks to be done, in the order given: the runtime carries each out and feeds back what the journal
/// and the API answered.
enum StationEffect: Sendable {
    case log(Logger.Severity, String)
    /// Journals `event` (durable before it is published), publishes it, then feeds back `.recorded`. `thenCall`: the
    /// call starts as soon as the line is written, beside its fdatasync, and the event is then published even if its
    /// fdatasync fails; a line the journal refused starts none.
    case record(StationEvent, requester: ClientID?, room: Journal.Room, record: StationRecord, thenCall: StationCall?)
    /// Makes the call on a thread of its own and feeds back `.answered`.
    case startCall(StationCall)
    /// Shows a recorded verdict at the devices that can (a reader's LED and buzzer).
    case show(VerdictEvent)
    /// Answers a client's `verify` whose scan or verdict the journal refused.
    case refuseUnrecorded(String, requestID: JSON?, requester: ClientID)
    /// The systemd status line changed.
    case statusLine(String)
    /// A reload applied `options`: later calls go through a client made for them. `needsRestart` names the keys that
    /// differ from the running value and keep it.
    case reloaded(DaemonOptions, needsRestart: [String])
    /// After `after`, checks whether the API can be reached, presenting no proof, within `timeout`; feeds back
    /// `.apiChecked`.
    case checkAPI(after: Duration, timeout: Duration)
    /// Makes durable that the proof of the deferred scan whose `deferred` verdict is `deferredSeq` is being presented,
    /// then makes its call as `startCall` does (if the mark cannot be made, the call is not made: `.answered` says so).
    case present(StationCall, deferredSeq: UInt64)
    /// No proof is being presented any more: the mark goes.
    case presentingDone
    /// Retention keeps the journal from the segment holding `from` (the oldest deferred scan's line); nil: no floor.
    case keepJournal(from: UInt64?)
    /// Stopping, and every scan taken has its verdict.
    case stopped
}

/// Which of the station's events a `record` effect journals, so that its outcome comes back to the right scan.
enum StationRecord: Sendable, Hashable {
    case scan(id: String)
    case verdict(scanID: String)
    case source
    case readError
}
