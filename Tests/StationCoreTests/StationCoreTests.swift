import Foundation
import JSONCore
import StationCore
import StationWire
import Synchronization
import Testing
import TestSupport
import VerdictSocket

/// Every rule of the station core, in this process, against the sandbox API: no pcscd, no daemon binary.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct StationCoreTests {
    let client = ClientID(rawValue: 1)

    func sandbox() async throws -> SandboxAPI {
        let api = try Station.sharedAPI.get()
        try await api.reset()
        return api
    }

    @Test(arguments: [
        ("https://sealtrust.io/p/SN-00042", "printed_serial", "identity", "identified"),
        ("https://id.sealtrust.io/01/03701234567890", "product_reference", "model", "identified"),
        ("WIFI:S:guest;T:WPA;P:secret;;", "foreign", nil, "not_sealtrust"),
        ("https://sealtrust.io/c?picc_data=EF963FF7828658A5", "chip", "presence", "unreadable_link"),
    ] as [(String, String, String?, String)])
    func aStringIsClassifiedAndAnswered(_ raw: String, _ code: String, _ proves: String?, _ outcome: String) async throws {
        let api = try await sandbox()
        try await Station.run(api: api) { station, events in
            station.core.verify(raw: raw, requestID: "r", from: client)
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
        let api = try await sandbox()
        try await Station.run(api: api) { station, events in
            for raw in ["plain text", "https://other-brand.example/p/1", "https://sealtrust.io/c?picc_data=EF963FF7828658A5"] {
                station.core.verify(raw: raw, requestID: nil, from: client)
                _ = try await events.scanAndVerdict()
            }
        }
        #expect(try await api.requests().isEmpty)
    }

    /// A client pairs a verdict with its scan by `scan_id`: a random UUID, lowercase, never the same twice.
    @Test func eachScanGetsItsOwnRandomUUIDAndItsVerdictCarriesIt() async throws {
        let api = try await sandbox()
        var identifiers: Set<String> = []
        try await Station.run(api: api) { station, events in
            for _ in 0..<50 {
                station.core.verify(raw: "plain text", requestID: nil, from: client)
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
        let api = try await sandbox()
        let urls = [try await api.tap(chip: "authentic"), try await api.tap(chip: "stolen")]
        try await Station.run(api: api) { station, events in
            for url in urls {
                station.core.receive(.scan(ScanRead(raw: url, source: "nfc:Reader A", medium: .nfc, readAt: .now)))
                let (scan, verdict) = try await events.scanAndVerdict(source: "nfc:Reader A")
                #expect(scan["medium"] == "nfc" && scan["raw"] == .string(url))
                #expect(verdict["outcome"] == "authentic")
                #expect(verdict["latency_ms"]?.integerValue != nil)
            }
        }
        let calls = try await api.requests().filter { $0.path == "/scans/verify" }
        #expect(calls.count == 2)
        #expect(zip(calls, urls).allSatisfy { call, url in (try? JSON.parse(call.body)["url"]) == .string(url) })
    }

    @Test func theVerdictFollowsEachAPIAnswer() async throws {
        let api = try await sandbox()
        let authentic = try await api.tap(chip: "seal-opened")
        let stolen = try await api.tap(chip: "stolen")
        let unregistered = try await api.tap(chip: "never-registered")
        let failing = try await api.tap(chip: "authentic")
        try await Station.run(api: api) { station, events in
            station.core.verify(raw: authentic, requestID: nil, from: client)
            let sealed = try await events.scanAndVerdict().verdict
            #expect(sealed["outcome"] == "authentic" && sealed["seal"] == .object([("status", "opened"), ("policy", "inform")]))
            #expect(sealed["theft_reported"] == false)

            station.core.verify(raw: stolen, requestID: nil, from: client)
            let theft = try await events.scanAndVerdict().verdict
            #expect(theft["outcome"] == "authentic" && theft["theft_reported"] == true, "a theft report never passes as fine")

            station.core.verify(raw: authentic, requestID: nil, from: client)
            let replayed = try await events.scanAndVerdict().verdict
            #expect(replayed["outcome"] == "replay")

            station.core.verify(raw: unregistered, requestID: nil, from: client)
            let unregistered = try await events.scanAndVerdict().verdict
            #expect(unregistered["outcome"] == "never_registered")

            try await api.fault(path: "/scans/verify", status: 503, body: #"{"detail":"down for a moment"}"#, count: 1)
            station.core.verify(raw: failing, requestID: nil, from: client)
            let failure = try await events.scanAndVerdict().verdict
            #expect(failure["outcome"] == "failure")
            #expect(failure["error"] == .object([("kind", "api"), ("http_status", 503), ("detail", "down for a moment")]))

            try await api.fault(path: "/passport/SN-00042", status: 404, body: #"{"detail":"no such product"}"#, count: 1)
            station.core.verify(raw: "https://sealtrust.io/p/SN-00042", requestID: nil, from: client)
            let notFound = try await events.scanAndVerdict().verdict
            #expect(notFound["outcome"] == "not_found")
        }
    }

    @Test func atMostSixteenCallsAreOutAndTheRestWaitTheirTurn() async throws {
        let api = try await sandbox()
        var urls: [String] = []
        for _ in 0..<20 { urls.append(try await api.tap(chip: "authentic")) }
        try await api.fault(path: "/scans/verify", delay: 1, count: 16)
        try await Station.run(api: api) { station, events in
            for (index, url) in urls.enumerated() {
                station.core.verify(raw: url, requestID: .int(Int64(index)), from: client)
            }
            // The first answer comes a second after the first call: until then the sandbox sees sixteen calls, no more.
            var seen = 0
            while seen < 16 { seen = try await api.requests().count }
            #expect(seen == 16)
            var outcomes: [JSON] = []
            while outcomes.count < 20 { outcomes.append(try await events.next("verdict")["outcome"] ?? .null) }
            // Taps of one chip that reach the server out of counter order read as replays: the call was made, once.
            #expect(outcomes.allSatisfy { $0 == "authentic" || $0 == "replay" }, "\(outcomes)")
        }
        #expect(try await api.requests().count == 20, "each waiting scan got its call once a slot was free")
    }

    @Test func aReadErrorAndSourceStatesAreJournaledAndCountedOnce() async throws {
        try await Station.run(api: nil) { station, events in
            station.core.receive(.state(SourceEvent(id: "nfc", medium: .nfc, state: .absent, detail: "no PC/SC reader")))
            station.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .attached, detail: "attached"), replacing: "nfc"))
            station.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            station.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            station.core.receive(.readError(ReadFailure(source: "nfc:R", medium: .nfc, reason: .removedDuringRead, detail: "gone")))
            let error = try await events.next("read_error")
            #expect(error["reason"] == "removed_during_read" && error["message"] == "Hold the tag still and try again.")
            #expect(events.all.filter { $0["type"] == "source" }.count == 3, "a repeated state is not journaled again")
            let hello = JSON.object(station.core.helloFields())
            #expect(hello["sources"] == [.object([("id", "nfc:R"), ("medium", "nfc"), ("state", "ready")])], "the placeholder is gone")
            #expect(station.core.statusLine == "1 reader ready, no camera, 0 scans")
        }
    }

    /// A FIFO whose writer keeps sending a broken stream fails, recovers and fails again each second: the operator's
    /// log says so once a minute, with the count of what it held back, while clients still get every state.
    @Test func aSourceFlippingBetweenErrorAndReadyLogsItsErrorAtMostOnceAMinute() async throws {
        let clock = ManualClock()
        let logged = LoggedLines()
        let logger = Logger(level: .warning, environment: [:]) { logged.append($0) }
        let id = "y4m:/run/camera.fifo"
        func errorLines() -> [String] { logged.all.filter { $0.contains("source \(id) error: ") } }
        try await Station.run(api: nil, logger: logger, now: { clock.now }) { station, events in
            func report(_ state: SourceState, _ detail: String) async throws {
                station.core.receive(.state(SourceEvent(id: id, medium: .qr, state: state, detail: detail)))
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
        let logger = Logger(level: .warning, environment: [:]) { logged.append($0) }
        let serial = "serial:/dev/serial/by-id/usb-Scanner-if00"
        func lines(_ source: String) -> [String] { logged.all.filter { $0.contains("read error on \(source): ") } }
        try await Station.run(api: nil, logger: logger, now: { clock.now }) { station, events in
            for index in 0..<535 {
                station.core.receive(.readError(ReadFailure(source: serial, medium: .serial, reason: .invalidUTF8, detail: "byte \(index)")))
            }
            for _ in 0..<3 {
                station.core.receive(.readError(ReadFailure(source: "nfc:R", medium: .nfc, reason: .removedDuringRead, detail: "gone")))
            }
            while events.all.filter({ $0["type"] == "read_error" }).count < 538 { _ = try await events.next("read_error") }
            #expect(lines(serial) == ["sealtrust-scand: warning: read error on \(serial): invalid_utf8: byte 0\n"], "\(lines(serial))")
            #expect(lines("nfc:R").count == 3)
            clock.advance(by: .seconds(60))
            station.core.receive(.readError(ReadFailure(source: serial, medium: .serial, reason: .invalidUTF8, detail: "byte 535")))
            _ = try await events.next("read_error")
            #expect(lines(serial).last?.hasSuffix("byte 535 (and 534 more read errors since the last one logged)\n") == true, "\(lines(serial))")
        }
    }

    /// `status` names the station, the token state and, once a source has scanned, when it last did.
    @Test func statusNamesTheStationTheTokenAndEachSourcesLastScan() async throws {
        try await Station.run(api: nil) { station, events in
            station.core.receive(.state(SourceEvent(id: "y4m:/f", medium: .qr, state: .ready, detail: "8x8 Y4M")))
            station.core.receive(.state(SourceEvent(id: "nfc:R", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            station.core.receive(.scan(ScanRead(raw: "hello", source: "y4m:/f", medium: .qr, readAt: .now)))
            let scan = try await events.scanAndVerdict(source: "y4m:/f").scan
            let status = JSON.object(station.core.statusFields())
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
        try await Station.run(api: nil) { station, events in
            for raw in ["one", "two", "https://sealtrust.io/c?picc_data=EF963FF7828658A5"] {
                station.core.verify(raw: raw, requestID: nil, from: client)
                _ = try await events.scanAndVerdict()
            }
            let status = JSON.object(station.core.statusFields())
            let counters = try #require(status["counters"])
            #expect(counters["scans"] == 3)
            #expect(counters["verdicts"]?["not_sealtrust"] == 2 && counters["verdicts"]?["unreadable_link"] == 1)
            #expect(counters["verdicts"]?["authentic"] == 0 && counters["api_errors"] == 0)
            #expect(status["last_seq"] == 6)
            var lines = station.statusLines.makeAsyncIterator()
            while let line = await lines.next(), line != "0 readers ready, no camera, 3 scans" {}
        }
    }

    @Test func aReloadChangesTheLanguageAtOnceAndNamesWhatNeedsARestart() async throws {
        try await Station.run(api: nil) { station, events in
            station.core.verify(raw: "plain text", requestID: nil, from: client)
            let english = try await events.scanAndVerdict().verdict
            #expect(english["message"] == "This code is not a SealTrust code.")
            var french = Station.options(api: nil, directory: station.directory)
            french.language = .fr
            french.maxClients = 9
            #expect(try station.core.reconfigure(french) == ["max-clients"])
            station.core.verify(raw: "plain text", requestID: nil, from: client)
            let inFrench = try await events.scanAndVerdict().verdict
            #expect(inFrench["message"] == "Ce code n'est pas un code SealTrust.")
        }
    }

    @Test func aGracefulStopLetsTheCallInFlightFinishAndTakesNoNewScan() async throws {
        let api = try await sandbox()
        let url = try await api.tap(chip: "authentic")
        try await api.fault(path: "/scans/verify", delay: 0.5, count: 1)
        try await Station.run(api: api) { station, events in
            station.core.verify(raw: url, requestID: "inflight", from: client)
            _ = try await events.next("scan")
            station.core.stopGracefully()
            station.core.verify(raw: "late", requestID: "late", from: client)
            let verdict = try await events.next("verdict")
            #expect(verdict["outcome"] == "authentic" && verdict["request_id"] == "inflight")
            #expect(try station.journal.events(after: 0).map(\.type) == ["scan", "verdict"], "the late scan was not taken")
        }
    }

    @Test func aScriptedSourceRunsAsAServiceIntoTheCore() async throws {
        try await Station.run(api: nil) { station, events in
            let source = ScriptedSource(reports: [
                .state(SourceEvent(id: "y4m:/f", medium: .qr, state: .ready, detail: "8x8 Y4M")),
                .scan(ScanRead(raw: "hello", source: "y4m:/f", medium: .qr, readAt: .now)),
            ])
            try await station.core.service(for: source).run()
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
