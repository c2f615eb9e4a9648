import NFCReader
import StationWire

extension ReaderSignal {
    /// daemon.md's "Feedback at the reader": a theft report always alarms, whatever the outcome.
    init(_ verdict: VerdictEvent) {
        if verdict.theftReported == true {
            self = .alarm
            return
        }
        switch verdict.outcome {
        case .authentic, .identified: self = .accepted
        case .replay, .invalidSignature: self = .alarm
        case .mintingInProgress, .neverRegistered, .unreadableLink, .tooManyCalls, .failure, .notFound, .notSealTrust:
            self = .caution
        }
    }
}
