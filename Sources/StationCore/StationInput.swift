import DaemonConfiguration
import JSONCore
import SealTrustKit
import StationWire
import VerdictSocket

/// What happens to a station: a source's report, a client's `verify`, the journal's and the API's answers, a reload.
enum StationInput: Sendable {
    /// A string read, or given by a client's `verify`; `scanID` is the new scan's.
    case scanned(ScanRead, scanID: String, requestID: JSON?, requester: ClientID?)
    /// The journal recorded (and published) an event of `record` (at `seq`), or refused it.
    case recorded(StationRecord, recorded: Bool, journalRefuses: Bool, seq: UInt64? = nil)
    /// The API answered a scan's call.
    case answered(scanID: String, StationAnswer)
    case sourceChanged(SourceEvent, replacing: String?)
    case readFailed(ReadFailure)
    /// A source's remark, worth a debug line.
    case note(String)
    /// SIGHUP's options; the CA bundle they name was found usable.
    case reload(DaemonOptions)
    /// A `checkAPI`'s answer: nil when the API could be reached.
    case apiChecked(SealTrustError?)
    /// The scans the journal holds as deferred, at start, oldest first.
    case recovered([RecoveredDeferral])
    /// Take no more scans; say `stopped` once every scan taken has its verdict.
    case stop
}

/// The API's answer to a call, as the client gave it.
enum StationAnswer: Sendable {
    case verification(Result<ScanVerification, any Error>)
    case passport(Result<Passport, any Error>)
}
