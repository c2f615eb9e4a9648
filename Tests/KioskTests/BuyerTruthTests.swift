import Foundation
import JSONCore
import KioskHarness
import StationClient
import StationWire
import Testing
import TestSupport

/// Nothing at the station reassures falsely (outputs.md, "What the kiosk page shows"): in headless Chromium, fed by
/// the real daemon reading the sandbox, read as a buyer reads the screen (its computed colours and its words).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BuyerTruthTests {
    /// The standard theme's backgrounds, as Chromium computes them.
    static let good = "rgb(10, 92, 42)"
    static let identified = "rgb(61, 44, 107)"
    static let alert = "rgb(176, 0, 30)"
    static let words: [String: [String: String]] = [
        "en": ["valid": "Certificate of authenticity: valid.", "keep": "keep the certificate", "theft": "Reported stolen",
               "revoked": "Certificate of authenticity: revoked by its issuer. It is not valid."],
        "fr": ["valid": "Certificat d'authenticité\u{A0}: valide.", "keep": "garder le certificat", "theft": "Signalé volé",
               "revoked": "Certificat d'authenticité\u{A0}: révoqué par son émetteur. Il n'est pas valide."],
    ]

    @Test(arguments: ["en", "fr"])
    func noPrintedCodeReassuresFalsely(language: String) async throws {
        let words = try #require(Self.words[language])
        let rig = try StationRig(language: language, hold: 60)
        let page = try await rig.idlePage()
        let station = try await rig.connect()
        defer { station.close() }
        let output = testOutputDirectory()

        // 1. A stolen item's printed code: the theft alert from its history, no product, no certificate to keep.
        let (_, stolen) = try await verify("https://sealtrust.io/p/SN-00048", on: station, id: "stolen")
        #expect(stolen["outcome"] == "identified")
        let stolenScan = try #require(stolen["scan_id"]?.stringValue)
        var screen = try await page.waitFor("v.dataset.scan === '\(stolenScan)' && v.dataset.theft === 'reported'")
        try await page.screenshot(to: output + "/\(language)-truth-printed-stolen.png")
        #expect(screen.tone == "alert" && screen.background == Self.alert && screen.icon == "!", "\(screen)")
        #expect(screen.theftText == words["theft"], "\(screen)")
        var panel = try await page.productPanel()
        #expect(!panel.shown && !panel.hasCode, "\(panel)")
        #expect(!panel.pageText.contains(words["valid"]!) && !panel.pageText.contains(words["keep"]!), "\(panel.pageText)")
        #expect(try httpGet(port: rig.kiosk.port, path: "/certificate.svg?scan_id=\(stolenScan)").status == 404)
        let product = try httpGet(port: rig.kiosk.port, path: "/passport?scan_id=\(stolenScan)")
        #expect(product.status == 200 && product.body.contains("theft_reported") && !product.body.contains("pdf_url")
                && !product.body.contains("product_name"), "only the warnings: \(product.body)")

        // 2 and 4. A printed code: its own calm colour and sign, never green or the check mark; no certificate to keep.
        let (_, printed) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "printed")
        let printedScan = try #require(printed["scan_id"]?.stringValue)
        panel = try await page.waitForProductPanel(scanID: printedScan)
        screen = try await page.screen()
        try await page.screenshot(to: output + "/\(language)-truth-printed.png")
        #expect(screen.tone == "identified" && screen.background == Self.identified && screen.background != Self.good, "\(screen)")
        #expect(screen.icon != "\u{2713}", "\(screen)")
        #expect(!panel.hasCode && panel.certificateHint == "" && !panel.pageText.contains(words["keep"]!), "\(panel)")
        #expect(panel.warningKinds == ["named_item_only"] && panel.warnings.allSatisfy { !$0.isEmpty }, "\(panel)")
        #expect(try httpGet(port: rig.kiosk.port, path: "/certificate.svg?scan_id=\(printedScan)").status == 404)

        // 3. A revoked certificate: a warning first in the panel, never the valid line, never a code.
        let (_, revoked) = try await verify("https://sealtrust.io/p/SN-2024%2F07%20%C3%A9%231", on: station, id: "revoked")
        panel = try await page.waitForProductPanel(scanID: try #require(revoked["scan_id"]?.stringValue))
        try await page.screenshot(to: output + "/\(language)-truth-printed-revoked.png")
        #expect(panel.warningKinds.first == "certificate_not_valid" && panel.warnings.first == words["revoked"], "\(panel)")
        #expect(panel.certificate == words["revoked"] && !panel.hasCode && !panel.pageText.contains(words["valid"]!), "\(panel)")

        // A genuine chip: the good screen, the check mark and the certificate to keep.
        let (_, genuine) = try await verify(try mintChipURL("authentic", counter: 60), on: station, id: "genuine")
        panel = try await page.waitForProductPanel(scanID: try #require(genuine["scan_id"]?.stringValue))
        screen = try await page.screen()
        try await page.screenshot(to: output + "/\(language)-truth-chip-authentic.png")
        #expect(screen.tone == "good" && screen.background == Self.good && screen.icon == "\u{2713}" && panel.hasCode, "\(screen) \(panel)")
    }

    /// The page's rule for every row of the spec's table (`BuyerScreenTable`), given the warnings the station raises.
    @Test func thePageObeysTheTableForEveryRow() async throws {
        let rig = try StationRig(hold: 60)
        let page = try await rig.idlePage()
        let rows = BuyerScreenTable.rows
        let inputs = JSON.array(rows.map { row in
            var verdict: [(String, JSON)] = [("outcome", .string(row.outcome))]
            if let flag = row.theftFlag { verdict.append(("theft_reported", .bool(flag))) }
            if let seal = row.seal { verdict.append(("seal", .object([("status", .string(seal.status)), ("policy", .string(seal.policy))]))) }
            return .object([("v", .object(verdict)), ("kinds", .array(row.warnings.map { .string($0) }))])
        })
        let screens = try await page.evaluate("\(inputs.encoded()).map((r) => window.kioskScreenFor(r.v, r.kinds))").arrayValue ?? []
        #expect(screens.count == rows.count)
        for (row, screen) in zip(rows, screens) {
            #expect(screen["tone"]?.stringValue == row.tone && screen["icon"]?.stringValue == row.icon, "\(row): \(screen.encoded())")
            #expect(screen["panel"] == .bool(row.panel), "\(row): \(screen.encoded())")
            // The code is drawn only from a valid certificate's address, which the daemon gives only then.
            if row.certificateStatus != nil {
                let drawn = screen["code"] == .bool(true) && row.certificateStatus == "valid"
                #expect(drawn == row.certificateCode, "\(row): \(screen.encoded())")
            }
        }
    }

    /// 8. A genuine chip whose answer is slow, then a copy tapped after it: the copy's `replay` stays on the screen
    /// when the genuine chip's late `authentic` comes; a verdict older than the newest scan never replaces it.
    @Test func aLateAuthenticNeverReplacesTheNewerReplay() async throws {
        let rig = try StationRig(hold: 60)
        let page = try await rig.idlePage()
        let station = try await rig.connect()
        defer { station.close() }
        let first = try mintChipURL("spare-a", counter: 70)
        _ = try await verify(first, on: station, id: "first")
        try await rig.api.fault(path: "/scans/verify", count: 1, hold: true)
        let verifiesBefore = try await rig.api.requests().filter { $0.path == "/scans/verify" }.count
        try station.send(ClientCommand(id: "slow", action: .verify(raw: try mintChipURL("authentic", counter: 70))))
        var slowScan: String?
        while slowScan == nil, let message = await station.next() {
            if message.type == .event(.scan), message.json["request_id"] == "slow" { slowScan = message.json["scan_id"]?.stringValue }
        }
        // The slow verify must be the one held: the copy is tapped only once the sandbox has it (a call starts on a
        // thread of its own, so on a busy machine the copy's could otherwise arrive first and be held instead).
        let deadline = ContinuousClock.now + .seconds(20)
        while try await rig.api.requests().filter({ $0.path == "/scans/verify" }).count == verifiesBefore {
            try #require(ContinuousClock.now < deadline, "the slow verify never reached the sandbox")
            try await Task.sleep(for: .milliseconds(10))
        }
        let (_, copy) = try await verify(first, on: station, id: "copy")
        #expect(copy["outcome"] == "replay")
        _ = try await page.waitForSeq(try #require(copy["seq"]?.integerValue))
        try await rig.api.release()
        var late: JSON?
        while late == nil, let message = await station.next() {
            if message.type == .event(.verdict), message.json["request_id"] == "slow" { late = message.json }
        }
        let lateVerdict = try #require(late)
        #expect(lateVerdict["outcome"] == "authentic")
        let lateSeq = try #require(lateVerdict["seq"]?.integerValue)
        let screen = try await page.waitFor("v.dataset.received === '\(lateSeq)'")
        try await page.screenshot(to: testOutputDirectory() + "/en-truth-late-authentic-after-replay.png")
        #expect(screen.outcome == "replay" && screen.tone == "alert", "the copy's alert stays: \(screen)")
        #expect(!(try await page.productPanel()).shown)
    }

    /// A chip read through an API outage under `--on-api-outage defer`: `deferred` is a calm screen (never the good
    /// one, never an alert or "cannot check"); once the API is back, its late verdict shows, marked as an earlier
    /// scan's, and without the product panel: the item is no longer in hand. A late verdict never replaces a live
    /// answer to a newer scan.
    @Test func aDeferredScanIsCalmAndItsLateVerdictIsMarkedAsAnEarlierScans() async throws {
        let rig = try StationRig(hold: 60, daemonArguments: ["--on-api-outage", "defer"])
        let page = try await rig.idlePage()
        let station = try await rig.connect()
        defer { station.close() }
        rig.stopAPI()
        let (_, deferred) = try await verify(try mintChipURL("authentic", counter: 90), on: station, id: "deferred")
        #expect(deferred["outcome"] == "deferred")
        var screen = try await page.waitForSeq(try #require(deferred["seq"]?.integerValue))
        try await page.screenshot(to: testOutputDirectory() + "/en-truth-deferred.png")
        #expect(screen.outcome == "deferred" && screen.tone == "neutral", "\(screen)")
        #expect(screen.background != Self.good && screen.background != Self.alert, "\(screen)")
        #expect(screen.message == "Recorded; it will be checked as soon as the service is back.")

        try rig.startAPIAgain()
        var late: JSON?
        while late == nil, let message = await station.next() {
            if message.type == .event(.verdict), message.json["late"] == .bool(true) { late = message.json }
        }
        let lateVerdict = try #require(late)
        #expect(lateVerdict["outcome"] == "authentic" && lateVerdict["deferred_seq"] == deferred["seq"])
        screen = try await page.waitForSeq(try #require(lateVerdict["seq"]?.integerValue))
        try await page.screenshot(to: testOutputDirectory() + "/en-truth-late-authentic.png")
        #expect(screen.outcome == "authentic" && screen.late == "true", "\(screen)")
        #expect(screen.hint == "Checked now: a scan recorded earlier, while the service was away.", "\(screen)")
        #expect(!(try await page.productPanel()).shown, "no product panel for an item no longer in hand")

        // A newer scan's live answer stays when another deferred scan's late verdict comes: the deferred proof is held
        // in the API while a printed code (never deferred, never waiting behind the chips) is answered live.
        rig.stopAPI()
        let (_, second) = try await verify(try mintChipURL("authentic", counter: 91), on: station, id: "second")
        #expect(second["outcome"] == "deferred")
        try rig.startAPIAgain(faults: [#"{"path":"/scans/verify","hold":true,"count":1}"#])
        while try await rig.api.requests().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        let (_, printed) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "printed")
        #expect(printed["outcome"] == "identified")
        _ = try await page.waitForSeq(try #require(printed["seq"]?.integerValue))
        try await rig.api.release()
        late = nil
        while late == nil, let message = await station.next() {
            if message.type == .event(.verdict), message.json["late"] == .bool(true) { late = message.json }
        }
        let secondLate = try #require(late)
        #expect(secondLate["scan_id"] == second["scan_id"] && secondLate["outcome"] == "authentic")
        screen = try await page.waitFor("v.dataset.received === '\(try #require(secondLate["seq"]?.integerValue))'")
        #expect(screen.outcome == "identified" && screen.late == "false", "the live answer stays: \(screen)")
    }

    /// 12. After the bridge restarts, a page resumes with `Last-Event-ID`: a verdict older than the hold is history,
    /// and the screen does not show it as fresh.
    @Test func aPageResumingAfterARestartShowsNoOldVerdict() async throws {
        let rig = try StationRig(hold: 1)
        let page = try await rig.idlePage()
        let station = try await rig.connect()
        defer { station.close() }
        let (_, shown) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "shown")
        _ = try await page.waitForSeq(try #require(shown["seq"]?.integerValue))
        _ = rig.kiosk.stop()
        _ = try await page.waitForOutcome("offline")
        let (_, meanwhile) = try await verify(try mintChipURL("authentic", counter: 80), on: station, id: "meanwhile")
        #expect(meanwhile["outcome"] == "authentic")
        // Older than the one-second hold by the time it is replayed: what this test is about, not a wait for an event.
        try await Task.sleep(for: .milliseconds(1_500))
        try rig.restartKiosk()
        let seq = try #require(meanwhile["seq"]?.integerValue)
        let screen = try await page.waitFor("v.dataset.received === '\(seq)'")
        #expect(screen.outcome != "authentic" && screen.tone != "good", "an old verdict is history, not the screen: \(screen)")
        #expect(!(try await page.productPanel()).shown)
    }

    /// 6. A chip URL is a one-time proof until the API has answered it: the page's stream, which needs no
    /// authentication, never carries it, even while the call is held; local socket clients get the scan at once.
    @Test func theEventStreamNeverCarriesAChipURL() async throws {
        let rig = try StationRig(hold: 8)
        let stream = try HTTPProbe(port: rig.kiosk.port)
        #expect(stream.get("/events") && stream.readHead()?.status == 200)
        let station = try await rig.connect()
        defer { station.close() }
        try await rig.api.fault(path: "/scans/verify", count: 1, hold: true)
        let chipURL = try mintChipURL("authentic", counter: 90)
        try station.send(ClientCommand(id: "held", action: .verify(raw: chipURL)))
        var scan: JSON?
        while scan == nil, let message = await station.next() {
            if message.type == .event(.scan), message.json["request_id"] == "held" { scan = message.json }
        }
        #expect(scan?["raw"] == .string(chipURL), "the local socket has the scan at once, byte for byte")
        let seq = try #require(scan?["seq"]?.integerValue)
        var seen: ServerSentEvent?
        while seen == nil, let event = stream.nextEvent(timeout: .seconds(15)) {
            if event.name == "scan" { seen = event }
        }
        let event = try #require(seen, "the scan reached the stream")
        #expect(event.id == String(seq) && event.data.contains("\"raw_withheld\":true"), "\(event.data)")
        #expect(!event.data.contains("picc_data") && !event.data.contains(String(chipURL.prefix(30))), "no chip URL: \(event.data)")
        try await rig.api.release()
        var verdict: ServerSentEvent?
        while verdict == nil, let next = stream.nextEvent(timeout: .seconds(15)) {
            #expect(!next.data.contains("picc_data"), "\(next.data)")
            if next.name == "verdict" { verdict = next }
        }
        #expect(verdict?.data.contains("\"outcome\":\"authentic\"") == true)
    }
}
