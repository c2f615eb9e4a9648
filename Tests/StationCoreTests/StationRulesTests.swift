import DaemonConfiguration
import JSONCore
import SealTrustKit
import Sentences
@testable import StationCore
import StationWire
import Testing
import VerdictSocket

/// The station's rules as a value: inputs in, effects out, in order; no thread, journal, network or clock.
struct StationRulesTests {
    let start = ContinuousClock.now
    let requester = ClientID(rawValue: 7)
    let chipURL = "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"

    func makeStation(_ adjust: (inout DaemonOptions) -> Void = { _ in }) -> Station {
        var options = DaemonOptions()
        options.station = "bench"
        adjust(&options)
        return Station(options: options, startedAt: start, sourceErrorLogInterval: .seconds(60))
    }

    func feed(_ station: inout Station, _ input: StationInput, after elapsed: Duration = .zero) -> [String] {
        station.handle(input, at: start + elapsed, timestamp: "2026-12-04T12:00:00.000Z").map(describe)
    }

    func scanned(_ raw: String, id: String, requester: ClientID? = nil) -> StationInput {
        .scanned(ScanRead(raw: raw, source: "nfc:R", medium: .nfc, readAt: start), scanID: id, requestID: nil, requester: requester)
    }

    /// An effect in a few words, with what the rules decide in it.
    func describe(_ effect: StationEffect) -> String {
        switch effect {
        case .log(let severity, _): "log \(severity)"
        case .record(let event, _, let room, _, let call):
            "record \(event.type.rawValue)" + (room == .none ? "" : " \(room)") + (call.map { " then call \($0.scanID)" } ?? "")
        case .startCall(let call): "call \(call.scanID)"
        case .show(let verdict): "show \(verdict.scanID) \(verdict.outcome.rawValue)"
        case .refuseUnrecorded(let what, _, _): "refuse: \(what)"
        case .statusLine(let line): "status: \(line)"
        case .reloaded(_, let needsRestart): "reloaded, restart for \(needsRestart)"
        case .stopped: "stopped"
        case .checkAPI(let delay, _): "check API after \(delay)"
        case .present(let call, let seq): "present \(call.scanID) deferred at \(seq)"
        case .presentingDone: "presenting done"
        case .keepJournal(let seq): "keep journal from \(seq.map { String($0) } ?? "none")"
        }
    }

    let room = Station.verdictRoomBytes(requestID: nil)

    @Test func aChipScanIsJournaledItsCallStartsAsTheLineIsWrittenAndItsVerdictIsShownOnceRecorded() {
        var station = makeStation()
        #expect(feed(&station, scanned(chipURL, id: "a")) == [
            "log info", "record scan reserve(bytes: \(room)) then call a", "status: 0 readers ready, no camera, 1 scan",
        ])
        #expect(feed(&station, .recorded(.scan(id: "a"), recorded: true, journalRefuses: false)).isEmpty)
        let answer = StationAnswer.verification(.success(ScanVerification(status: .authentic)))
        #expect(feed(&station, .answered(scanID: "a", answer), after: .milliseconds(120)) == [
            "log info", "record verdict use(bytes: \(room))",
        ])
        #expect(feed(&station, .recorded(.verdict(scanID: "a"), recorded: true, journalRefuses: false)) == ["show a authentic"])
    }

    @Test func theVerdictCarriesTheLatencyFromWhenTheCodeWasRead() {
        var station = makeStation()
        _ = feed(&station, scanned(chipURL, id: "a"))
        let effects = station.handle(.answered(scanID: "a", .verification(.success(ScanVerification(status: .authentic)))),
                                     at: start + .milliseconds(250), timestamp: "2026-12-04T12:00:00.250Z")
        guard case .record(.verdict(let verdict), _, _, _, _) = effects.last else {
            Issue.record("no verdict recorded: \(effects.map(describe))")
            return
        }
        #expect(verdict.latencyMilliseconds == 250)
    }

    @Test func aScanTheJournalRefusedGetsNoCallAndItsRequesterIsToldWhy() {
        var station = makeStation()
        _ = feed(&station, scanned(chipURL, id: "a", requester: requester))
        #expect(feed(&station, .recorded(.scan(id: "a"), recorded: false, journalRefuses: true)) == [
            "refuse: the scan was not journaled, so it was not verified",
            "status: 0 readers ready, no camera, 1 scan, CANNOT RECORD: the journal refuses writes",
        ])
        #expect(feed(&station, scanned(chipURL, id: "b")).contains("record scan reserve(bytes: \(room)) then call b"),
                "the refused scan's call slot is free again")
    }

    @Test func theSeventeenthCallWaitsForASlotAndGetsTheFirstOneFreed() {
        var station = makeStation()
        var started: [String] = []
        for index in 0...Station.callsInFlightLimit {
            started += feed(&station, scanned(chipURL, id: "\(index)")).filter { $0.contains("call") }
            #expect(feed(&station, .recorded(.scan(id: "\(index)"), recorded: true, journalRefuses: false)).isEmpty)
        }
        #expect(started == (0..<16).map { "record scan reserve(bytes: \(room)) then call \($0)" })
        _ = feed(&station, .answered(scanID: "3", .verification(.success(ScanVerification(status: .authentic)))))
        #expect(feed(&station, .recorded(.verdict(scanID: "3"), recorded: true, journalRefuses: false)) == [
            "show 3 authentic", "call 16",
        ])
    }

    /// A call waits for a slot only once its scan is recorded: a refused scan's call never starts, whoever frees a slot.
    @Test func aWaitingScanTheJournalRefusedNeverGetsItsCall() {
        var station = makeStation()
        for index in 0..<Station.callsInFlightLimit {
            _ = feed(&station, scanned(chipURL, id: "\(index)"))
        }
        #expect(feed(&station, scanned(chipURL, id: "late", requester: requester)).contains("record scan reserve(bytes: \(room))"))
        #expect(feed(&station, .recorded(.scan(id: "late"), recorded: false, journalRefuses: true)).first
                == "refuse: the scan was not journaled, so it was not verified")
        _ = feed(&station, .answered(scanID: "3", .verification(.success(ScanVerification(status: .authentic)))))
        #expect(feed(&station, .recorded(.verdict(scanID: "3"), recorded: true, journalRefuses: true)) == ["show 3 authentic"])
        #expect(feed(&station, scanned(chipURL, id: "next")).contains("record scan reserve(bytes: \(room)) then call next"))
    }

    // MARK: Passports

    let panel = PassportQuery(subject: .identifier("SN-00042"), parts: [.passport])

    func passportReads(complete: Bool) -> PassportReads {
        var reads = PassportReads()
        reads.passport = complete
            ? .success(Passport(identifier: "SN-00042", accessTier: "public", productName: "Sac", brand: "Maison", gtin: nil, fields: [:]))
            : .failure(SealTrustError.api(status: 503, detail: nil, code: nil, retryAfterSeconds: nil))
        return reads
    }

    @Test func atMostEightPassportCommandsAreReadAtOnceAndTheNinthIsAskedToWait() {
        var station = makeStation()
        var reads: [PassportRead] = []
        for index in 0..<Station.passportsInFlightLimit {
            guard case .read(let read) = station.askPassport(panel, requestID: .int(Int64(index)), at: start) else {
                Issue.record("passport \(index) was not read")
                return
            }
            reads.append(read)
        }
        guard case .answer(let busy) = station.askPassport(panel, requestID: "ninth", at: start) else {
            Issue.record("a ninth passport read at once")
            return
        }
        #expect(busy["type"] == "passport" && busy["id"] == "ninth" && busy["outcome"] == "too_many_calls", "\(busy.encoded())")
        #expect(busy["retry_after_s"] == 1)
        let answer = station.passportRead(reads[0], gave: passportReads(complete: false), at: start)
        #expect(answer["id"] == 0)
        guard case .read = station.askPassport(panel, requestID: "tenth", at: start) else {
            Issue.record("a slot freed by a finished read was not taken")
            return
        }
    }

    @Test func aWholePassportReadIsAnsweredFromMemoryForAMinuteAndAFailedOneIsNot() {
        var station = makeStation()
        guard case .read(let failing) = station.askPassport(panel, requestID: "a", at: start) else {
            Issue.record("the first passport was not read")
            return
        }
        _ = station.passportRead(failing, gave: passportReads(complete: false), at: start)
        guard case .read(let whole) = station.askPassport(panel, requestID: "b", at: start) else {
            Issue.record("a failed read was answered from memory")
            return
        }
        let read = station.passportRead(whole, gave: passportReads(complete: true), at: start)
        guard case .answer(let remembered) = station.askPassport(panel, requestID: "c", at: start + .seconds(59)) else {
            Issue.record("the same question within a minute was read again")
            return
        }
        #expect(remembered["id"] == "c" && remembered["passport"] == read["passport"], "\(remembered.encoded())")
        let otherParts = PassportQuery(subject: .identifier("SN-00042"), parts: [.passport, .history])
        guard case .read = station.askPassport(otherParts, requestID: "d", at: start + .seconds(59)) else {
            Issue.record("other parts were answered from memory")
            return
        }
        guard case .read = station.askPassport(panel, requestID: "e", at: start + .seconds(60)) else {
            Issue.record("an answer older than a minute was given from memory")
            return
        }
    }

    @Test func aPassportOfAScanNotRememberedIsNotAvailable() {
        var station = makeStation()
        guard case .answer(let answer) = station.askPassport(PassportQuery(subject: .scan(id: "gone")), requestID: "p", at: start) else {
            Issue.record("a scan not remembered was read")
            return
        }
        #expect(answer["type"] == "error" && answer["code"] == "not_available" && answer["id"] == "p", "\(answer.encoded())")
    }

    @Test func aStopWaitsForEveryScanTakenAndRefusesNewOnes() {
        var station = makeStation()
        _ = feed(&station, scanned(chipURL, id: "a"))
        #expect(feed(&station, .stop).isEmpty, "a call is out")
        #expect(feed(&station, scanned("plain text", id: "b")) == ["log info"], "ignored, and said in the log")
        _ = feed(&station, .answered(scanID: "a", .verification(.failure(SealTrustError.api(status: 409, detail: nil, code: nil,
                                                                                         retryAfterSeconds: nil)))))
        #expect(feed(&station, .recorded(.verdict(scanID: "a"), recorded: true, journalRefuses: false)) == [
            "show a replay", "stopped",
        ])
    }

    /// The call starts beside its scan's fdatasync, so its verdict may be recorded before the scan's outcome is fed.
    @Test func aVerdictRecordedBeforeItsScansOutcomeClosesTheScanOnce() {
        var station = makeStation()
        _ = feed(&station, scanned(chipURL, id: "a"))
        _ = feed(&station, .answered(scanID: "a", .verification(.success(ScanVerification(status: .authentic)))))
        _ = feed(&station, .stop)
        #expect(feed(&station, .recorded(.verdict(scanID: "a"), recorded: true, journalRefuses: false)) == [
            "show a authentic", "stopped",
        ])
        #expect(feed(&station, .recorded(.scan(id: "a"), recorded: true, journalRefuses: false)).isEmpty)
    }

    @Test func aForeignCodeIsAnsweredWithoutACallOnceItsScanIsRecorded() {
        var station = makeStation()
        #expect(feed(&station, scanned("WIFI:S:guest;;", id: "w")).contains("record scan reserve(bytes: \(room))"))
        #expect(feed(&station, .recorded(.scan(id: "w"), recorded: true, journalRefuses: false)) == [
            "log info", "record verdict use(bytes: \(room))",
        ])
        #expect(feed(&station, .recorded(.verdict(scanID: "w"), recorded: true, journalRefuses: false)) == ["show w not_sealtrust"])
    }

    /// No information is never a broken seal, and a theft report never passes as fine.
    @Test func aSealWithoutInformationIsNotShownAndATheftReportIsAlwaysSaid() {
        var station = makeStation()
        var verdicts: [VerdictEvent] = []
        for (id, verification) in [("quiet", ScanVerification(status: .authentic)),
                                   ("stolen", ScanVerification(status: .authentic, tamperStatus: .intact, theftReported: true))] {
            _ = feed(&station, scanned(chipURL, id: id))
            for case .record(.verdict(let verdict), _, _, _, _) in station.handle(
                .answered(scanID: id, .verification(.success(verification))), at: start, timestamp: "2026-12-04T12:00:00.000Z") {
                verdicts.append(verdict)
            }
        }
        #expect(verdicts.count == 2)
        #expect(verdicts.first?.seal == nil && verdicts.first?.theftReported == false)
        #expect(verdicts.last?.theftReported == true && verdicts.last?.message.contains("theft") == true, "\(verdicts.last?.message ?? "")")
    }

    @Test func aReloadAppliesTheLanguageAndKeepsWhatNeedsARestart() {
        var station = makeStation()
        var options = station.settings.options
        options.language = .fr
        options.socketPath = "/run/other.sock"
        options.maxClients = 3
        #expect(feed(&station, .reload(options)).first == "reloaded, restart for [\"socket\", \"max-clients\"]")
        #expect(station.settings.texts.notSealTrust == ScreenTexts.french.notSealTrust)
        #expect(station.settings.options.socketPath == DaemonOptions().socketPath, "the running socket stays")
    }

    @Test func aSourcesRepeatedStateIsNotJournaledAgainAndItsErrorsAreLoggedOnceAnInterval() {
        var station = makeStation()
        let ready = SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")
        #expect(feed(&station, .sourceChanged(ready, replacing: "nfc")) == [
            "log notice", "record source", "status: 1 reader ready, no camera, 0 scans",
        ])
        #expect(feed(&station, .sourceChanged(ready, replacing: nil)).isEmpty)
        let broken = SourceEvent(id: "y4m:/f", medium: .qr, state: .error, detail: "bad header")
        let fine = SourceEvent(id: "y4m:/f", medium: .qr, state: .ready, detail: "8x8")
        #expect(feed(&station, .sourceChanged(broken, replacing: nil)).first == "log warning")
        _ = feed(&station, .sourceChanged(fine, replacing: nil))
        #expect(feed(&station, .sourceChanged(broken, replacing: nil), after: .seconds(30)).first == "record source")
        _ = feed(&station, .sourceChanged(fine, replacing: nil))
        #expect(feed(&station, .sourceChanged(broken, replacing: nil), after: .seconds(61)).first == "log warning")
    }
}
