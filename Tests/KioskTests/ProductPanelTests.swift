import Foundation
import JSONCore
import KioskHarness
import QRScanner
import StationClient
import StationWire
import Testing
import TestSupport

/// The product panel in headless Chromium, fed by the real daemon reading the sandbox: what a buyer sees of the
/// product behind a verdict, and never under an alert.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ProductPanelTests {
    /// The sentences a test checks, per language: the page's own words and the daemon's.
    static let words: [String: [String: String]] = [
        "en": ["tier": "Passport shown at the level: ", "hint": "Scan this code to keep the certificate on your phone.",
               "none": "No information about anchoring.", "valid": "Certificate of authenticity: valid.",
               "printed": "Printed code: it names the item but does not prove that the object in hand is genuine.",
               "noCertificate": "No certificate of authenticity has been issued for this product.",
               "about": "What the brand recorded about the item this code names, not about the object in hand:",
               "history": "History, newest first:", "noHistory": "No history is published for this product."],
        "fr": ["tier": "Passeport affiché au niveau\u{A0}: ", "hint": "Scannez ce code pour garder le certificat sur votre téléphone.",
               "none": "Aucune information sur l'ancrage.", "valid": "Certificat d'authenticité\u{A0}: valide.",
               "printed": "Code imprimé\u{A0}: il désigne l'article mais ne prouve pas que l'objet en main est authentique.",
               "noCertificate": "Aucun certificat d'authenticité n'a été émis pour ce produit.",
               "about": "Ce que la marque a enregistré sur l'article que ce code désigne, pas sur l'objet en main\u{A0}:",
               "history": "Historique, du plus récent au plus ancien\u{A0}:", "noHistory": "Aucun historique n'est publié pour ce produit."],
    ]

    @Test(arguments: ["en", "fr"])
    func thePanelShowsTheProductUnderAuthenticAndIdentifiedOnly(language: String) async throws {
        let words = try #require(Self.words[language])
        let rig = try StationRig(language: language, hold: 60)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        _ = try await page.waitForOutcome("idle")
        try await page.recordProductPanels()
        let station = try await rig.connect()
        defer { station.close() }
        let output = testOutputDirectory()

        // An authentic chip: the product, the tier served, the anchoring line, the certificate with its code, history.
        let authentic = try mintChipURL("authentic", counter: 40)
        let (_, genuine) = try await verify(authentic, on: station, id: "genuine")
        let genuineScan = try #require(genuine["scan_id"]?.stringValue)
        var panel = try await page.waitForProductPanel(scanID: genuineScan)
        try await page.screenshot(to: output + "/\(language)-panel-authentic.png")
        let answer = try await passport(of: genuineScan, on: station)
        #expect(panel.product.hasPrefix(answer["product_name"]?.stringValue ?? "?"), "\(panel)")
        #expect(panel.tier.hasPrefix(words["tier"]!), "\(panel)")
        #expect(panel.anchoring == answer["proof"]?["anchoring"]?.stringValue && panel.anchoringText == answer["proof"]?["message"]?.stringValue)
        #expect(!panel.anchoringWarning, "anchored is said calmly: \(panel)")
        #expect(panel.certificate == words["valid"] && panel.certificateHint == words["hint"] && panel.hasCode, "\(panel)")
        #expect(panel.about == "", "a chip proves the object: \(panel)")
        #expect(panel.fitsTheScreen, "\(panel)")
        let history = answer["history"]?.arrayValue ?? []
        #expect(panel.history.count == min(5, history.count) && !panel.history.isEmpty && panel.historyLabel == words["history"], "\(panel)")
        #expect(panel.history.first?.hasSuffix(history.first?["message"]?.stringValue ?? "?") == true, "newest first: \(panel)")

        // The certificate's code, as the page draws it, reads back as the pdf_url.
        let side = 480
        let pixels = try await page.certificateCodePixels(side: side)
        let payloads = pixels.withUnsafeBufferPointer { QRFrameDecoder().decode(luma: $0, width: side, height: side) }
        let pdfURL = try #require(answer["certificate"]?["pdf_url"]?.stringValue)
        #expect(payloads == [Array(pdfURL.utf8)])

        // The longest sentence a panel goes with (the seal opened, the brand lowering trust) above a modified record:
        // everything still fits the screen.
        let (_, degraded) = try await verify(try mintChipURL("seal-opened-degrade", counter: 40), on: station, id: "degraded")
        panel = try await page.waitForProductPanel(scanID: try #require(degraded["scan_id"]?.stringValue))
        try await page.screenshot(to: output + "/\(language)-panel-authentic-opened-degrade.png")
        #expect(panel.fitsTheScreen && panel.hasCode && panel.certificateHint == words["hint"], "\(panel)")

        // A printed code: the panel, and the verdict's sentence that a printed code proves nothing stays.
        for (serial, state) in [("SN-00044", "modified_after_anchoring"), ("SN-00045", "none"), ("SN-00043", "never_anchored")] {
            let (_, verdict) = try await verify("https://sealtrust.io/p/\(serial)", on: station, id: serial)
            let scanID = try #require(verdict["scan_id"]?.stringValue)
            panel = try await page.waitForProductPanel(scanID: scanID)
            try await page.screenshot(to: output + "/\(language)-panel-identified-\(state).png")
            let screen = try await page.screen()
            #expect(screen.outcome == "identified" && screen.message == words["printed"], "\(screen)")
            #expect(panel.anchoring == state, "\(serial): \(panel)")
            #expect(panel.anchoringWarning == (state == "modified_after_anchoring"), "only a modification is a warning: \(panel)")
            #expect(panel.warningKinds.contains("named_item_only") && panel.about == "", "the record is the named item's: \(panel)")
            #expect(!panel.hasCode && panel.certificateHint == "", "a printed code hands over no certificate to keep: \(panel)")
            #expect(panel.fitsTheScreen, "\(panel)")
            if state == "none" { #expect(panel.anchoringText == words["none"], "\(panel)") }
            #expect(!panel.pageText.lowercased().contains("not anchored") && !panel.pageText.lowercased().contains("non ancré"))
        }

        // A part the daemon could not read is its sentence alone: SN-00050 has no certificate.
        let (_, uncertified) = try await verify("https://sealtrust.io/p/SN-00050", on: station, id: "SN-00050")
        panel = try await page.waitForProductPanel(scanID: try #require(uncertified["scan_id"]?.stringValue))
        try await page.screenshot(to: output + "/\(language)-panel-identified-no-certificate.png")
        #expect(panel.certificate == words["noCertificate"] && !panel.hasCode && panel.certificateHint == "", "\(panel)")

        // The history the API does not know (its 404 once): its sentence alone, no label above nothing.
        try await rig.api.fault(path: "/history/", status: 404, body: #"{"detail":"ITEM_NOT_FOUND: no history"}"#, count: 1,
                                contentType: "application/json")
        let (_, historyless) = try await verify("https://sealtrust.io/p/SN-00046", on: station, id: "SN-00046")
        panel = try await page.waitForProductPanel(scanID: try #require(historyless["scan_id"]?.stringValue))
        try await page.screenshot(to: output + "/\(language)-panel-identified-no-history.png")
        #expect(panel.historyFailure == words["noHistory"] && panel.history.isEmpty && panel.historyLabel == "", "\(panel)")
        #expect(panel.certificate == words["valid"] && !panel.hasCode, "the other parts still come: \(panel)")

        // Alerts: no panel at all, at once and later.
        let tampered = String(try mintChipURL("spare-a", counter: 40).dropLast()) + "0"
        var alertScans: [String] = []
        for (name, raw) in [("replay", authentic), ("invalid-signature", tampered), ("theft", try mintChipURL("stolen", counter: 40))] {
            let (_, verdict) = try await verify(raw, on: station, id: name)
            let seq = try #require(verdict["seq"]?.integerValue)
            let screen = try await page.waitForSeq(seq)
            panel = try await page.productPanel()
            try await page.screenshot(to: output + "/\(language)-panel-absent-\(name).png")
            #expect(screen.tone == "alert" && !panel.shown, "\(name): \(screen) \(panel)")
            alertScans.append(try #require(verdict["scan_id"]?.stringValue))
        }
        // A last printed code's panel marks the end: any panel asked before it has come by then.
        let (_, last) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "last")
        let lastScan = try #require(last["scan_id"]?.stringValue)
        _ = try await page.waitForProductPanel(scanID: lastScan)
        let shown = try await page.productPanelsShown()
        #expect(shown.last == lastScan && alertScans.allSatisfy { !shown.contains($0) }, "\(shown)")
    }

    @Test func aPageOpenedAfterTheVerdictShowsItsProduct() async throws {
        let rig = try StationRig(hold: 60)
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "before")
        let scanID = try #require(verdict["scan_id"]?.stringValue)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        let panel = try await page.waitForProductPanel(scanID: scanID)
        #expect(panel.product.hasPrefix("Chronograph 42") && !panel.hasCode, "\(panel)")
    }

    /// The daemon's reads held at the certificate while the next scan replaces the verdict: the product that comes
    /// afterwards is not shown under the other verdict, nor at all.
    @Test func aProductThatComesAfterItsVerdictLeftIsNeverShown() async throws {
        let rig = try StationRig(hold: 60)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        _ = try await page.waitForOutcome("idle")
        try await page.recordProductPanels()
        let station = try await rig.connect()
        defer { station.close() }

        try await rig.api.fault(path: "/certificate/", hold: true)
        let (_, slow) = try await verify("https://sealtrust.io/p/SN-00043", on: station, id: "slow")
        let slowScan = try #require(slow["scan_id"]?.stringValue)
        let (_, foreign) = try await verify("https://id.gs1.org/01/09506000134352", on: station, id: "next")
        let screen = try await page.waitForSeq(try #require(foreign["seq"]?.integerValue))
        #expect(screen.outcome == "not_sealtrust")
        try await rig.api.release()
        // Answered by now to every request waiting for it, the page's among them.
        #expect(try httpGet(port: rig.kiosk.port, path: "/passport?scan_id=\(slowScan)", timeout: .seconds(15)).status == 200)

        let (_, last) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "last")
        let lastScan = try #require(last["scan_id"]?.stringValue)
        _ = try await page.waitForProductPanel(scanID: lastScan)
        #expect(try await page.productPanelsShown() == [lastScan])
    }

    /// Two parts the API refused for a while (429): each line says which part it is, and the page asks once more after
    /// the wait while the verdict is still shown, which brings them.
    @Test func partsThatCouldNotBeReadSayWhichAndComeBackAfterTheWait() async throws {
        let rig = try StationRig(hold: 60)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        _ = try await page.waitForOutcome("idle")
        let station = try await rig.connect()
        defer { station.close() }
        for path in ["/certificate/", "/history/"] {
            try await rig.api.fault(path: path, status: 429, body: #"{"detail":"RATE_LIMITED: slow down"}"#, count: 1,
                                    contentType: "application/json", headers: ["Retry-After": "2"])
        }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "limited")
        let scanID = try #require(verdict["scan_id"]?.stringValue)
        let limited = try await page.waitForProductPanel(scanID: scanID)
        try await page.screenshot(to: testOutputDirectory() + "/en-panel-parts-limited.png")
        let wait = "Too many requests right now: this part will be back in 2 seconds."
        #expect(limited.certificate == "Certificate: " + wait && limited.historyFailure == "History: " + wait, "\(limited)")

        let again = try await page.waitFor("document.getElementById('pp-history').childElementCount > 0", timeout: .seconds(15))
        let panel = try await page.productPanel()
        #expect(again.outcome == "identified" && panel.scanID == scanID, "\(again) \(panel)")
        #expect(panel.certificate == "Certificate of authenticity: valid." && panel.historyFailure == "" && !panel.history.isEmpty, "\(panel)")
        let asked = try await rig.api.requests().filter { $0.path.hasPrefix("/history/") }.count
        #expect(asked == 2, "asked once more, not again and again: \(asked)")
    }

    /// The daemon's own `passport` answer for a scan, to hold the page to.
    private func passport(of scanID: String, on station: StationConnection) async throws -> JSON {
        try station.send(ClientCommand(id: "check", action: .passport(PassportQuery(subject: .scan(id: scanID)))))
        while let message = await station.next() {
            if message.json["id"] == "check" { return message.json }
        }
        throw BrowserError("no passport answer for \(scanID)")
    }
}
