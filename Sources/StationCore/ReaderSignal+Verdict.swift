import NFCReader
import StationWire

extension ReaderSignal {
    /// daemon.md's "Feedback at the reader": a theft report always alarms, whatever the outcome; the plain good
    /// signal only for a chip's `authentic` with nothing to raise.
    init(_ verdict: VerdictEvent) {
        if verdict.theftReported == true {
            self = .alarm
            return
        }
        switch verdict.outcome {
        case .authentic: self = verdict.seal == VerdictEvent.Seal(status: .opened, policy: .degrade) ? .informational : .accepted
        // Recorded, not yet checked: no word on the product, good or bad.
        case .identified, .deferred: self = .informational
        case .replay, .invalidSignature: self = .alarm
        case .mintingInProgress, .neverRegistered, .unreadableLink, .tooManyCalls, .failure, .notFound, .notSealTrust:
            self = .caution
        }
    }
}
