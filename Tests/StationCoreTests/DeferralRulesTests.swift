import DaemonConfiguration
import JSONCore
import SealTrustKit
@testable import StationCore
import StationWire
import Testing

/// Deferred verification (`on-api-outage = defer`) as rules: inputs in, effects out; no thread, journal or network.
struct DeferralRulesTests {
    let rules = StationRulesTests()
    let refused = SealTrustError.transport(TransportFailure(.connect, "connection refused", requestWritten: false))
    let cut = SealTrustError.transport(TransportFailure(.reset, "the connection broke while the answer was read"))
    let authentic = StationAnswer.verification(.success(ScanVerification(status: .authentic)))

    func deferring(_ adjust: (inout DaemonOptions) -> Void = { _ in }) -> Station {
        rules.makeStation {
            $0.onAPIOutage = .defer
            adjust(&$0)
        }
    }

    func chip(_ number: Int) -> String {
        "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E8\(number)&cmac=94EED9EE6533708\(number)"
    }

    /// What the effects journal and ask: a verdict as `verdict <scan> <outcome>` (`late <seq>` on a late one), a
    /// presentation, a call, a check; logs and status lines left out.
    func fed(_ station: inout Station, _ input: StationInput, after elapsed: Duration = .zero) -> [String] {
        station.handle(input, at: rules.start + elapsed, timestamp: "2026-12-07T12:00:00.000Z").compactMap { effect in
            switch effect {
            case .log, .statusLine, .record(.scan, _, _, _, nil): nil
            case .record(.scan, _, _, _, let call?): "call \(call.scanID)"
            case .record(.verdict(let verdict), _, _, _, _):
                "verdict \(verdict.scanID) \(verdict.outcome.rawValue)" + (verdict.deferredSeq.map { " late \($0)" } ?? "")
            default: rules.describe(effect)
            }
        }
    }

    /// A chip scan read at `elapsed` and journaled; what its admission asks (a call starts as its line is written).
    func tap(_ station: inout Station, _ id: String, chip number: Int, after elapsed: Duration = .zero, seq: UInt64? = nil) -> [String] {
        let read = ScanRead(raw: chip(number), source: "nfc:R", medium: .nfc, readAt: rules.start + elapsed)
        return fed(&station, .scanned(read, scanID: id, requestID: nil, requester: nil), after: elapsed)
            + fed(&station, .recorded(.scan(id: id), recorded: true, journalRefuses: false, seq: seq), after: elapsed)
    }

    func recorded(_ station: inout Station, verdictOf id: String, seq: UInt64, after elapsed: Duration = .zero) -> [String] {
        fed(&station, .recorded(.verdict(scanID: id), recorded: true, journalRefuses: false, seq: seq), after: elapsed)
    }

    /// Refused before a byte went: `deferred`, the API checked; a later tap is deferred at once, without a call.
    @Test func aRequestNeverWrittenIsDeferredAndLaterTapsWaitWithoutACall() {
        var station = deferring()
        #expect(tap(&station, "a", chip: 1) == ["call a"])
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(refused)))) == [
            "verdict a deferred", "check API after 2.0 seconds",
        ])
        #expect(recorded(&station, verdictOf: "a", seq: 3) == ["show a deferred"], "the reader shows it, as informational")
        #expect(tap(&station, "b", chip: 2, after: .seconds(1)) == ["verdict b deferred"], "no call while the API is away")
        #expect(recorded(&station, verdictOf: "b", seq: 5) == ["show b deferred"])
        #expect(fed(&station, .apiChecked(refused)) == ["check API after 2.0 seconds"])
        let status = station.statusFields(at: rules.start + .seconds(10), token: .none, journalRefusal: nil, lastSeq: 5)
        #expect(status.first { $0.0 == "deferred" }?.1 == .object([("count", .int(2)), ("oldest_age_s", .int(10))]))
        #expect(status.first { $0.0 == "counters" }?.1["api_errors"] == .int(1), "the call that found the API away")
        #expect(status.first { $0.0 == "last_api_error" }?.1["cause"] == .string("connect"))
        #expect(station.statusLine.contains("2 deferred"), "\(station.statusLine)")
    }

    /// Back: the oldest first, behind its mark, one at a time; each answer is a late verdict naming its `deferred`.
    /// Meanwhile the journal keeps the oldest deferred scan's line (its proof) from retention.
    @Test func theDeferredScansGoOldestFirstOneAtATimeWithLateVerdicts() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1, seq: 2)
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(refused)))) == [
            "keep journal from 2", "verdict a deferred", "check API after 2.0 seconds",
        ])
        _ = recorded(&station, verdictOf: "a", seq: 3)
        _ = tap(&station, "b", chip: 1, after: .seconds(1), seq: 4)
        _ = recorded(&station, verdictOf: "b", seq: 5)
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"])
        #expect(fed(&station, .answered(scanID: "a", authentic)) == ["verdict a authentic late 3"])
        #expect(recorded(&station, verdictOf: "a", seq: 6) == ["presenting done", "present b deferred at 5", "keep journal from 4"],
                "a late verdict is not shown at the reader: the item in hand is another")
        let replay = StationAnswer.verification(.failure(SealTrustError.api(status: 409, detail: nil, code: nil, retryAfterSeconds: nil)))
        #expect(fed(&station, .answered(scanID: "b", replay)) == ["verdict b replay late 5"])
        #expect(recorded(&station, verdictOf: "b", seq: 7) == ["presenting done", "keep journal from none"])
        #expect(tap(&station, "c", chip: 3) == ["call c"], "the queue is empty: calls go at once again")
    }

    /// A new tap while the deferred ones are verified waits its turn, with no verdict, then gets an ordinary one; its
    /// call goes only once its scan is recorded.
    @Test func aNewTapDuringTheDrainWaitsItsTurn() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"])
        #expect(tap(&station, "n", chip: 1, seq: 4) == [], "no call, no verdict yet")
        _ = fed(&station, .answered(scanID: "a", authentic))
        #expect(recorded(&station, verdictOf: "a", seq: 5) == ["presenting done", "call n"])
        #expect(fed(&station, .answered(scanID: "n", .verification(.failure(
            SealTrustError.api(status: 409, detail: nil, code: nil, retryAfterSeconds: nil))))) == ["verdict n replay"])
        #expect(recorded(&station, verdictOf: "n", seq: 6) == ["show n replay"])
    }

    /// A tap behind the deferred ones is called in its turn only once its scan is recorded: a chip URL is spent only for
    /// a scan the station journaled.
    @Test func aTapWaitingItsTurnIsCalledOnlyOnceItsScanIsRecorded() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        _ = fed(&station, .apiChecked(nil))
        let read = ScanRead(raw: chip(2), source: "nfc:R", medium: .nfc, readAt: rules.start)
        #expect(fed(&station, .scanned(read, scanID: "n", requestID: nil, requester: nil)) == [])
        _ = fed(&station, .answered(scanID: "a", authentic))
        #expect(!recorded(&station, verdictOf: "a", seq: 5).contains("call n"), "its scan is not journaled yet")
        #expect(fed(&station, .recorded(.scan(id: "n"), recorded: true, journalRefuses: false, seq: 6)).contains("call n"))
    }

    /// The API goes again while a deferred proof is out, nothing written: it stays deferred (no new verdict), and
    /// the taps waiting their turn are deferred.
    @Test func theAPIGoingAgainMidDrainKeepsTheHeadDeferredAndDefersTheWaitingTaps() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        _ = fed(&station, .apiChecked(nil))
        _ = tap(&station, "n", chip: 2)
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(refused)))) == [
            "presenting done", "verdict n deferred", "check API after 2.0 seconds",
        ])
        _ = recorded(&station, verdictOf: "n", seq: 5)
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"], "the same proof, still first")
    }

    /// Whatever `defer` says, a request that may have been written is a `failure`: never sent again. A drained
    /// one's too, late.
    @Test func aRequestThatMayHaveBeenWrittenIsAFailureNeverSentAgain() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(cut)))) == ["verdict a failure"])
        _ = recorded(&station, verdictOf: "a", seq: 3)
        _ = tap(&station, "b", chip: 2)
        _ = fed(&station, .answered(scanID: "b", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "b", seq: 5)
        _ = fed(&station, .apiChecked(nil))
        #expect(fed(&station, .answered(scanID: "b", .verification(.failure(cut)))) == ["verdict b failure late 5"])
        #expect(recorded(&station, verdictOf: "b", seq: 6) == ["presenting done"])
        #expect(fed(&station, .apiChecked(nil)).isEmpty, "nothing left to present")
    }

    /// A chip call that waited for a slot when the API went away is deferred when its slot comes, not called: it goes
    /// behind the deferred ones; and no deferred proof goes while a chip call from before is still out.
    @Test func aChipWaitingForASlotGoesBehindTheDeferredOnes() {
        var station = deferring()
        for index in 0...Station.callsInFlightLimit {
            _ = tap(&station, "\(index)", chip: index % 10, after: .milliseconds(Int64(index)), seq: UInt64(index + 1))
        }
        #expect(fed(&station, .answered(scanID: "0", .verification(.failure(refused)))).contains("verdict 0 deferred"))
        #expect(recorded(&station, verdictOf: "0", seq: 100) == ["show 0 deferred", "verdict 16 deferred"], "no call 16")
        #expect(fed(&station, .apiChecked(nil)).isEmpty, "fifteen chip calls from before the outage are still out")
        var last: [String] = []
        for index in 1..<Station.callsInFlightLimit {
            _ = fed(&station, .answered(scanID: "\(index)", authentic))
            last = recorded(&station, verdictOf: "\(index)", seq: UInt64(100 + index))
        }
        #expect(last == ["show 15 authentic", "present 0 deferred at 100"], "the last call from before is in")
    }

    /// The client's own limit refuses a deferred proof before anything is sent: it stays deferred, and the queue
    /// waits out the limit (the API's contract allows 30 verifications a minute; a long outage leaves more).
    @Test func aDeferredProofRefusedByTheClientsLimitWaitsItOut() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"])
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(SealTrustError.tooManyCalls(retryAfterSeconds: 7))))) == [
            "presenting done", "check API after 7.0 seconds",
        ])
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"])
        #expect(fed(&station, .answered(scanID: "a", authentic)) == ["verdict a authentic late 3"])
    }

    /// A stop during the drain: the tap waiting its turn is deferred (kept for the next start), the proof out gets
    /// its late verdict, and then the daemon stops; nothing else is presented.
    @Test func aStopDuringTheDrainDefersTheWaitingTapAndEndsOnceTheProofOutIsAnswered() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        _ = tap(&station, "b", chip: 2)
        _ = recorded(&station, verdictOf: "b", seq: 5)
        #expect(fed(&station, .apiChecked(nil)) == ["present a deferred at 3"])
        _ = tap(&station, "n", chip: 3)
        #expect(fed(&station, .stop) == ["verdict n deferred"])
        _ = recorded(&station, verdictOf: "n", seq: 7)
        _ = fed(&station, .answered(scanID: "a", authentic))
        #expect(recorded(&station, verdictOf: "a", seq: 8) == ["presenting done", "stopped"], "b stays deferred for the next start")
    }

    /// The default, `fail`: a buyer at a kiosk is told at once.
    @Test func underFailARefusedConnectionIsAFailure() {
        var station = rules.makeStation()
        _ = tap(&station, "a", chip: 1)
        #expect(fed(&station, .answered(scanID: "a", .verification(.failure(refused)))) == ["verdict a failure"])
    }

    /// Printed codes are never deferred: the outage is their `failure`, and they do not wait behind the chips.
    @Test func aPrintedCodeIsNeverDeferred() {
        var station = deferring()
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        let read = ScanRead(raw: "https://sealtrust.io/p/SN-12345678", source: "nfc:R", medium: .qr, readAt: rules.start)
        #expect(fed(&station, .scanned(read, scanID: "p", requestID: nil, requester: nil)) == ["call p"])
        #expect(fed(&station, .answered(scanID: "p", .passport(.failure(refused)))) == ["verdict p failure"])
    }

    /// Older than `defer-max-age`: a late `failure` that says why, never silently; checked while the API is away.
    @Test func aDeferredScanOlderThanTheMaximumAgeEndsAsALateFailure() {
        var station = deferring { $0.deferMaxAgeHours = 1 }
        _ = tap(&station, "a", chip: 1)
        _ = fed(&station, .answered(scanID: "a", .verification(.failure(refused))))
        _ = recorded(&station, verdictOf: "a", seq: 3)
        let effects = station.handle(.apiChecked(refused), at: rules.start + .seconds(3_601), timestamp: "2026-12-07T13:00:01.000Z")
        let verdicts = effects.compactMap { effect -> VerdictEvent? in
            guard case .record(.verdict(let verdict), _, _, _, _) = effect else { return nil }
            return verdict
        }
        #expect(verdicts.map(\.outcome) == [.failure] && verdicts.first?.deferredSeq == 3)
        #expect(verdicts.first?.error?.detail?.contains("defer-max-age") == true, "\(verdicts.first?.error?.detail ?? "")")
        #expect(!effects.contains { if case .checkAPI = $0 { true } else { false } }, "nothing left to wait for")
        _ = recorded(&station, verdictOf: "a", seq: 4, after: .seconds(3_601))
        #expect(tap(&station, "b", chip: 2, after: .seconds(3_602)) == ["call b"])
    }

    /// At start: the deferred scans come back in order and the API is checked at once; one whose proof was being
    /// presented ends as a late `failure`, and its mark goes once that is journaled.
    @Test func theDeferredScansComeBackAtStartAndAnInterruptedOneEndsAsAFailure() {
        var station = deferring()
        func kept(_ id: String, _ number: Int, seq: UInt64, interrupted: Bool) -> RecoveredDeferral {
            RecoveredDeferral(scanID: id, read: ScanRead(raw: chip(number), source: "nfc:R", medium: .nfc, readAt: rules.start),
                              requestID: nil, scanSeq: seq - 1, deferredSeq: seq, interrupted: interrupted)
        }
        #expect(fed(&station, .recovered([kept("x", 1, seq: 4, interrupted: true), kept("y", 2, seq: 6, interrupted: false)])) == [
            "verdict x failure late 4", "keep journal from 3", "check API after 0.0 seconds",
        ])
        #expect(recorded(&station, verdictOf: "x", seq: 9) == ["presenting done", "keep journal from 5"],
                "the interrupted scan's line is kept until its late verdict is journaled")
        #expect(fed(&station, .apiChecked(nil)) == ["present y deferred at 6"])
    }
}
