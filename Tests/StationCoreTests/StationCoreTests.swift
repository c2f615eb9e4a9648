import Foundation
import JSONCore
import Logging
import SealTrustKit
import StationCore
import StationWire
import Synchronization
import Testing
import TestSupport
import VerdictSocket

/// The station core running in this process, its calls answered by an in-process stand-in: no pcscd, no daemon
/// binary, no network. The daemon's tests take the same paths against the sandbox API.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct StationCoreTests {
    let client = ClientID(rawValue: 1)

    /// A chip URL with a proof, the `n`th.
    static func chipURL(_ n: Int) -> String {
        let counter = String(n, radix: 16, uppercase: true)
        return "https://sealtrust.io/c?picc_data=EF963FF7828658A599F30415106" + String(repeating: "0", count: 5 - counter.count)
            + counter + "&cmac=94EED9EE65337086"
    }

    static func passport(_ identifier: String, name: String) -> StandInAPI.Reply {
        .passport(Passport(identifier: identifier, accessTier: "public", productName: name, brand: "Maison Test", gtin: nil,
                           fields: [:]))
    }

    @Test(arguments: [
        ("https://sealtrust.io/p/SN-00042", "printed_serial", "identity", "identified"),
        ("https://id.sealtrust.io/01/03701234567890", "product_reference", "model", "identified"),
        ("WIFI:S:guest;T:WPA;P:secret;;", "foreign", nil, "not_sealtrust"),
        ("https://sealtrust.io/c?picc_data=EF963FF7828658A5", "chip", "presence", "unreadable_link"),
    ] as [(String, String, String?, String)])
    func aStringIsClassifiedAndAnswered(_ raw: String, _ code: String, _ proves: String?, _ outcome: String) async throws {
        let api = StandInAPI()
        api.answer("SN-00042", with: Self.passport("SN-00042", name: "Sac"))
        api.answer("03701234567890", with: Self.passport("03701234567890", name: "Sac (modèle)"))
        try await CoreRig.run(api: api) { rig, events in
            rig.core.verify(raw: raw, requestID: "r", from: client)
            let (scan, verdict) = try await events.scanAndVerdict()
            #expect(scan["raw"] == .string(raw), "the string as given, byte for byte")
            #expect(scan["code"] == .string(code))
            #expect(scan["proves"] == proves.map(JSON.string))
            #expect(scan["medium"] == "manual" && scan["request_id"] == "r")
            #expect(verdict["outcome"] == .string(outcome), "\(verdict.encoded())")
            #expect(verdict["request_id"] == "r")
            #expect((verdict["seq"]?.integerValue ?? 0) > (scan["seq"]?.integerValue ?? 0))
        }
    }

    @Test func aForeignCodeOrAChipLinkWithoutProofIsAnsweredWithoutACall() async throws {
        let api = StandInAPI()
        try await CoreRig.run(api: api) { rig, events in
            for raw in ["plain text", "https://other-brand.example/p/1", "https://sealtrust.io/c?picc_data=EF963FF7828658A5"] {
                rig.core.verify(raw: raw, requestID: nil, from: client)
                _ = try await events.scanAndVerdict()
            }
        }
        #expect(api.calls.isEmpty)
    }

    /// A client pairs a verdict with its scan by `scan_id`: a random UUID, lowercase, never the same twice.
    @Test func eachScanGetsItsOwnRandomUUIDAndItsVerdictCarriesIt() async throws {
        var identifiers: Set<String> = []
        try await CoreRig.run { rig, events in
            for _ in 0..<50 {
                rig.core.verify(raw: "plain text", requestID: nil, from: client)
                let (scan, verdict) = try await events.scanAndVerdict()
                let identifier = try #require(scan["scan_id"]?.stringValue)
                #expect(verdict["scan_id"] == scan["scan_id"])
                let groups = identifier.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
                #expect(groups == [8, 4, 4, 4, 12], "\(identifier)")
                #expect(identifier.allSatisfy { $0 == "-" || ("0"..."9").contains($0) || ("a"..."f").contains($0) }, "\(identifier)")
                #expect(Array(identifier)[14] == "4" && "89ab".contains(Array(identifier)[19]), "\(identifier): not a version 4 UUID")
                identifiers.insert(identifier)
            }
        }
        #expect(identifiers.count == 50)
    }

    @Test func eachChipScanIsOneCallCarryingTheURLByteForByte() async throws {
        let api = StandInAPI()
        let urls = [Self.chipURL(1), Self.chipURL(2).lowercased()]
        for url in urls { api.answer(url, with: .verification(ScanVerification(status: .authentic, productName: "Sac"))) }
        try await CoreRig.run(api: api) { rig, events in
            for url in urls {
                rig.core.receive(.scan(ScanRead(raw: url, source: "nfc:Reader A", medium: .nfc, readAt: .now)))
                let (scan, verdict) = try await events.scanAndVerdict(source: "nfc:Reader A")
                #expect(scan["medium"] == "nfc" && scan["raw"] == .string(url))
                #expect(verdict["outcome"] == "authentic" && verdict["product_name"] == "Sac")
                #expect(verdict["latency_ms"]?.integerValue != nil)
            }
        }
        #expect(api.calls == urls, "one call a scan, the URL as read")
    }

    @Test func theVerdictFollowsEachAPIAnswer() async throws {
        let api = StandInAPI()
        let (sealOpened, stolen, replayed, unregistered, failing) = (Self.chipURL(1), Self.chipURL(2), Self.chipURL(3),
                                                                     Self.chipURL(4), Self.chipURL(5))
        api.answer(sealOpened, with: .verification(ScanVerification(status: .authentic, tamperStatus: .opened)))
        api.answer(stolen, with: .verification(ScanVerification(status: .authentic, theftReported: true)))
        api.answer(replayed, with: .failure(.api(status: 409, detail: nil, code: nil, retryAfterSeconds: nil)))
        api.answer(unregistered, with: .failure(.api(status: 404, detail: nil, code: "CHIP_NOT_REGISTERED", retryAfterSeconds: nil)))
        api.answer(failing, with: .failure(.api(status: 503, detail: .string("down for a moment"), code: nil, retryAfterSeconds: nil)))
        try await CoreRig.run(api: api) { rig, events in
            rig.core.verify(raw: sealOpened, requestID: nil, from: client)
            let sealed = try await events.scanAndVerdict().verdict
            #expect(sealed["outcome"] == "authentic" && sealed["seal"] == .object([("status", "opened"), ("policy", "inform")]))
            #expect(sealed["theft_reported"] == false)

            rig.core.verify(raw: stolen, requestID: nil, from: client)
            let theft = try await events.scanAndVerdict().verdict
            #expect(theft["outcome"] == "authentic" && theft["theft_reported"] == true, "a theft report never passes as fine")

            rig.core.verify(raw: replayed, requestID: nil, from: client)
            #expect(try await events.scanAndVerdict().verdict["outcome"] == "replay")

            rig.core.verify(raw: unregistered, requestID: nil, from: client)
            #expect(try await events.scanAndVerdict().verdict["outcome"] == "never_registered")

            rig.core.verify(raw: failing, requestID: nil, from: client)
            let failure = try await events.scanAndVerdict().verdict
            #expect(failure["outcome"] == "failure")
            #expect(failure["error"] == .object([("kind", "api"), ("http_status", 503), ("detail", "down for a moment")]))
            #expect(rig.core.statusLine.hasSuffix("5 scans, last API error: failure [api 503: down for a moment]"), "\(rig.core.statusLine)")

            rig.core.verify(raw: "https://sealtrust.io/p/SN-00042", requestID: nil, from: client)
            #expect(try await events.scanAndVerdict().verdict["outcome"] == "not_found")
        }
    }

    @Test func atMostSixteenCallsAreOutAndTheRestWaitTheirTurn() async throws {
        let api = StandInAPI()
        let urls = (0..<20).map(Self.chipURL)
        for url in urls { api.answer(url, with: .verification(ScanVerification(status: .authentic))) }
        api.hold()
        try await CoreRig.run(api: api) { rig, events in
            for (index, url) in urls.enumerated() {
                rig.core.verify(raw: url, requestID: .int(Int64(index)), from: client)
            }
            var sent = api.sent.makeAsyncIterator()
            for _ in 0..<16 { _ = await sent.next() }
            // Every scan is journaled, and its call admitted or queued, before its event is published.
            while events.all.filter({ $0["type"] == "scan" }).count < 20 { _ = try await events.next("scan") }
            #expect(api.calls.count == 16, "sixteen calls out, four waiting")
            api.release(16)
            var outcomes: [JSON] = []
            while outcomes.count < 20 { outcomes.append(try await events.next("verdict")["outcome"] ?? .null) }
            #expect(outcomes.allSatisfy { $0 == "authentic" }, "\(outcomes)")
        }
        #expect(Set(api.calls) == Set(urls) && api.calls.count == 20, "each waiting scan got its call once a slot was free")
    }

    @Test func aReadErrorAndSourceStatesAreJournaledAndCountedOnce() async throws {
        try await CoreRig.run { rig, events in
            rig.core.receive(.state(SourceEvent(id: "nfc", medium: .nfc, state: .absent, detail: "no PC/SC reader")))
            rig.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .attached, detail: "attached"), replacing: "nfc"))
            rig.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            rig.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            rig.core.receive(.readError(ReadFailure(source: "nfc:R", medium: .nfc, reason: .removedDuringRead, detail: "gone")))
            let error = try await events.next("read_error")
            #expect(error["reason"] == "removed_during_read" && error["message"] == "Hold the tag still and try again.")
            #expect(events.all.filter { $0["type"] == "source" }.count == 3, "a repeated state is not journaled again")
            let hello = JSON.object(rig.core.helloFields())
            #expect(hello["sources"] == [.object([("id", "nfc:R"), ("medium", "nfc"), ("state", "ready")])], "the placeholder is gone")
            #expect(rig.core.statusLine == "1 reader ready, no camera, 0 scans")
        }
    }

    /// A FIFO whose writer keeps sending a broken stream fails, recovers and fails again each second: the operator's
    /// log says so once a minute, with the count of what it held back, while clients still get every state.
    @Test func aSourceFlippingBetweenErrorAndReadyLogsItsErrorAtMostOnceAMinute() async throws {
        let clock = ManualClock()
        let logged = LoggedLines()
        let logger = Logger(program: "sealtrust-scand", level: .warning, environment: [:]) { logged.append($0) }
        let id = "y4m:/run/camera.fifo"
        func errorLines() -> [String] { logged.all.filter { $0.contains("source \(id) error: ") } }
        try await CoreRig.run(logger: logger, now: { clock.now }) { rig, events in
            func report(_ state: SourceState, _ detail: String) async throws {
                rig.core.receive(.state(SourceEvent(id: id, medium: .qr, state: state, detail: detail)))
                _ = try await events.next { $0["type"] == "source" && $0["state"] == .string(state.rawValue) }
            }
            for _ in 0..<60 {
                try await report(.error, "bad frame header at frame 3")
                try await report(.ready, "8x8 Y4M")
                clock.advance(by: .seconds(1))
            }
            #expect(errorLines() == ["sealtrust-scand: warning: source \(id) error: bad frame header at frame 3\n"])
            try await report(.error, "bad frame header at frame 3")
            #expect(errorLines().count == 2, "a minute later the error is logged again: \(errorLines())")
            #expect(errorLines().last?.contains("(and 59 more errors since the last one logged)") == true, "\(errorLines())")
            #expect(events.all.filter { $0["type"] == "source" && $0["state"] == "error" }.count == 61, "clients get every state")
        }
    }

    /// 64 KiB of serial noise gave 535 warning lines: a handheld scanner's read errors are logged at most once a minute,
    /// with the count held back, while clients still get every `read_error`; a tag's, one per tap, are all logged.
    @Test func aHandheldScannersReadErrorsAreLoggedAtMostOnceAMinuteWithTheCountHeldBack() async throws {
        let clock = ManualClock()
        let logged = LoggedLines()
        let logger = Logger(program: "sealtrust-scand", level: .warning, environment: [:]) { logged.append($0) }
        let serial = "serial:/dev/serial/by-id/usb-Scanner-if00"
        func lines(_ source: String) -> [String] { logged.all.filter { $0.contains("read error on \(source): ") } }
        try await CoreRig.run(logger: logger, now: { clock.now }) { rig, events in
            for index in 0..<535 {
                rig.core.receive(.readError(ReadFailure(source: serial, medium: .serial, reason: .invalidUTF8, detail: "byte \(index)")))
            }
            for _ in 0..<3 {
                rig.core.receive(.readError(ReadFailure(source: "nfc:R", medium: .nfc, reason: .removedDuringRead, detail: "gone")))
            }
            while events.all.filter({ $0["type"] == "read_error" }).count < 538 { _ = try await events.next("read_error") }
            #expect(lines(serial) == ["sealtrust-scand: warning: read error on \(serial): invalid_utf8: byte 0\n"], "\(lines(serial))")
            #expect(lines("nfc:R").count == 3)
            clock.advance(by: .seconds(60))
            rig.core.receive(.readError(ReadFailure(source: serial, medium: .serial, reason: .invalidUTF8, detail: "byte 535")))
            _ = try await events.next("read_error")
            #expect(lines(serial).last?.hasSuffix("byte 535 (and 534 more read errors since the last one logged)\n") == true, "\(lines(serial))")
        }
    }

    /// `status` names the station, the token state and, once a source has scanned, when it last did.
    @Test func statusNamesTheStationTheTokenAndEachSourcesLastScan() async throws {
        try await CoreRig.run { rig, events in
            rig.core.receive(.state(SourceEvent(id: "y4m:/f", medium: .qr, state: .ready, detail: "8x8 Y4M")))
            rig.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            rig.core.receive(.scan(ScanRead(raw: "hello", source: "y4m:/f", medium: .qr, readAt: .now)))
            let scan = try await events.scanAndVerdict(source: "y4m:/f").scan
            let status = JSON.object(rig.core.statusFields())
            #expect(status["station"] == "test-bench" && status["token"] == "none")
            #expect(status["last_api_error"] == nil, "no call has failed")
            let sources = status["sources"]?.arrayValue ?? []
            let scanned = sources.first { $0["id"] == "y4m:/f" }
            let lastScan = scanned?["last_scan_at"]?.stringValue ?? ""
            let scannedAt = scan["at"]?.stringValue ?? ""
            // Taken as the scan is, just before it is journaled: RFC 3339 text of the same form, no later than the event.
            #expect(lastScan.hasSuffix("Z") && lastScan.count == scannedAt.count && lastScan <= scannedAt, "\(lastScan) \(scannedAt)")
            #expect(sources.first { $0["id"] == "nfc:R" }?["last_scan_at"] == nil, "no scan, no time: \(sources)")
        }
    }

    @Test func countersAndStatusFollowTheVerdicts() async throws {
        try await CoreRig.run { rig, events in
            for raw in ["one", "two", "https://sealtrust.io/c?picc_data=EF963FF7828658A5"] {
                rig.core.verify(raw: raw, requestID: nil, from: client)
                _ = try await events.scanAndVerdict()
            }
            let status = JSON.object(rig.core.statusFields())
            let counters = try #require(status["counters"])
            #expect(counters["scans"] == 3)
            #expect(counters["verdicts"]?["not_sealtrust"] == 2 && counters["verdicts"]?["unreadable_link"] == 1)
            #expect(counters["verdicts"]?["authentic"] == 0 && counters["api_errors"] == 0)
            #expect(status["last_seq"] == 6)
            var lines = rig.statusLines.makeAsyncIterator()
            while let line = await lines.next(), line != "0 readers ready, no camera, 3 scans" {}
        }
    }

    @Test func aReloadChangesTheLanguageAtOnceAndNamesWhatNeedsARestart() async throws {
        try await CoreRig.run { rig, events in
            rig.core.verify(raw: "plain text", requestID: nil, from: client)
            let english = try await events.scanAndVerdict().verdict
            #expect(english["message"] == "This code is not a SealTrust code.")
            var french = CoreRig.options(directory: rig.directory)
            french.language = .fr
            french.maxClients = 9
            #expect(try rig.core.reconfigure(french) == ["max-clients"])
            rig.core.verify(raw: "plain text", requestID: nil, from: client)
            let inFrench = try await events.scanAndVerdict().verdict
            #expect(inFrench["message"] == "Ce code n'est pas un code SealTrust.")
        }
    }

    @Test func aGracefulStopLetsTheCallInFlightFinishAndTakesNoNewScan() async throws {
        let api = StandInAPI()
        let url = Self.chipURL(1)
        api.answer(url, with: .verification(ScanVerification(status: .authentic)))
        api.hold()
        try await CoreRig.run(api: api) { rig, events in
            rig.core.verify(raw: url, requestID: "inflight", from: client)
            var sent = api.sent.makeAsyncIterator()
            _ = await sent.next()
            rig.core.stopGracefully()
            rig.core.verify(raw: "late", requestID: "late", from: client)
            api.release(1)
            let verdict = try await events.next("verdict")
            #expect(verdict["outcome"] == "authentic" && verdict["request_id"] == "inflight")
            // The stop came before the late `verify` and is taken in that order: the late scan is never journaled.
            #expect(try rig.journal.events(after: 0).map(\.type) == ["scan", "verdict"])
        }
        #expect(api.calls == [url])
    }

    @Test func aScriptedSourceRunsAsAServiceIntoTheCore() async throws {
        try await CoreRig.run { rig, events in
            let source = ScriptedSource(reports: [
                .state(SourceEvent(id: "y4m:/f", medium: .qr, state: .ready, detail: "8x8 Y4M")),
                .scan(ScanRead(raw: "hello", source: "y4m:/f", medium: .qr, readAt: .now)),
            ])
            try await rig.core.service(for: source).run()
            let (scan, verdict) = try await events.scanAndVerdict(source: "y4m:/f")
            #expect(scan["medium"] == "qr" && verdict["outcome"] == "not_sealtrust")
            #expect(events.all.first?["type"] == "source")
        }
    }
}

/// A source that reports a fixed script, then ends.
struct ScriptedSource: ScanSource {
    let name = "scripted"
    let reports: [SourceReport]

    func run(report: @escaping @Sendable (SourceReport) -> Void) async {
        reports.forEach(report)
    }
}

/// A clock the test moves by hand, for rules measured in minutes.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}

/// The lines a logger wrote, in order.
final class LoggedLines: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}
