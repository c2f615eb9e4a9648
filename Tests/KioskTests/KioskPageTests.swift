import Foundation
import KioskHarness
import JSONCore
import StationClient
import StationWire
import Testing
import TestSupport

/// The kiosk page in headless Chromium, fed by the real daemon over the bridge: what a buyer sees for each verdict.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct KioskPageTests {
    /// The page's own words that a test checks, per language.
    static let words: [String: [String: String]] = [
        "en": ["sealIntact": "Seal intact", "sealOpenedDegraded": "Seal opened: the brand lowers the trust shown",
               "theft": "Reported stolen", "offline": "Station offline", "idle": "Tap a tag or show a code", "area": "Scanned near "],
        "fr": ["sealIntact": "Scellé intact", "sealOpenedDegraded": "Scellé ouvert : la marque réduit la confiance affichée",
               "theft": "Signalé volé", "offline": "Station hors ligne", "idle": "Présentez une étiquette ou un code", "area": "Scanné près de "],
    ]

    struct Expected {
        let name: String
        let outcome: String
        let tone: String
        var seal = "none"
        var theft = false
        var product = false
        var area = false
    }

    @Test(arguments: ["en", "fr"])
    func everyVerdictClassShowsWhatTheBuyerMustSee(language: String) async throws {
        let words = try #require(Self.words[language])
        let rig = try StationRig(language: language, hold: 30)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        let idle = try await page.waitForOutcome("idle")
        #expect(idle.message == words["idle"])
        #expect(idle.live == "assertive", "the verdict region is announced by screen readers")
        let station = try await rig.connect()
        defer { station.close() }

        let authentic = try mintChipURL("authentic", counter: 20)
        let genuine = try mintChipURL("spare-a", counter: 20)
        let tampered = String(genuine.dropLast()) + (genuine.hasSuffix("0") ? "1" : "0")
        let cases: [(Expected, () async throws -> String)] = [
            (Expected(name: "authentic-intact", outcome: "authentic", tone: "good", seal: "intact", product: true), { authentic }),
            (Expected(name: "authentic-opened-degrade", outcome: "authentic", tone: "good", seal: "opened-degraded", product: true),
             { try mintChipURL("seal-opened-degrade", counter: 20) }),
            (Expected(name: "authentic-theft", outcome: "authentic", tone: "alert", seal: "intact", theft: true, product: true),
             { try mintChipURL("stolen", counter: 20) }),
            (Expected(name: "replay", outcome: "replay", tone: "alert"), { authentic }),
            (Expected(name: "invalid-signature", outcome: "invalid_signature", tone: "alert"), { tampered }),
            (Expected(name: "never-registered", outcome: "never_registered", tone: "neutral", area: true),
             { try mintChipURL("never-registered", counter: 20) }),
            (Expected(name: "identified", outcome: "identified", tone: "identified", product: true), { "https://sealtrust.io/p/SN-00042" }),
            (Expected(name: "not-sealtrust", outcome: "not_sealtrust", tone: "neutral"), { "https://id.gs1.org/01/09506000134352" }),
            (Expected(name: "not-found", outcome: "not_found", tone: "neutral"), { "https://sealtrust.io/p/SN-99999" }),
            (Expected(name: "minting", outcome: "minting_in_progress", tone: "neutral"), { try mintChipURL("minting", counter: 20) }),
            (Expected(name: "unreadable-link", outcome: "unreadable_link", tone: "neutral"), {
                "https://sealtrust.io/c?picc_data=ZZ963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"
            }),
            (Expected(name: "failure", outcome: "failure", tone: "unavailable"), {
                try await rig.api.fault(path: "/scans/verify", status: 503, count: 1)
                return try mintChipURL("spare-b", counter: 20)
            }),
        ]
        // The neutral screens' signs, by outcome: each state its own, never one "i" for five.
        var neutralIcons: [String: String] = [:]
        for (index, (expected, raw)) in cases.enumerated() {
            let (_, verdict) = try await verify(try await raw(), on: station, id: "\(language)-\(index)")
            #expect(verdict["outcome"]?.stringValue == expected.outcome, "\(expected.name): \(verdict.encoded())")
            let seq = try #require(verdict["seq"]?.integerValue)
            let screen = try await page.waitForSeq(seq)
            try await page.screenshot(to: testOutputDirectory() + "/\(language)-\(expected.name).png")
            #expect(screen.outcome == expected.outcome, "\(expected.name): \(screen)")
            #expect(screen.message == verdict["message"]?.stringValue, "\(expected.name): the daemon's sentence, whole: \(screen)")
            #expect(screen.tone == expected.tone, "\(expected.name): \(screen)")
            if expected.tone == "neutral" { neutralIcons[expected.outcome] = screen.icon }
            #expect((screen.icon == "\u{2713}") == (expected.outcome == "authentic" && expected.tone == "good" && expected.seal != "opened-degraded"),
                    "\(expected.name): the check mark is a chip's genuine read alone, never a printed code's: \(screen)")
            #expect(screen.seal == expected.seal, "\(expected.name): \(screen)")
            switch expected.seal {
            case "intact":
                // The daemon's sentence says it; a label under it said it twice.
                let said = try await page.evaluate("document.body.innerText").stringValue ?? ""
                #expect(screen.sealText == "" && said.components(separatedBy: words["sealIntact"]!).count == 2,
                        "\(expected.name): the seal said once: \(said)")
            case "opened-degraded": #expect(screen.sealText == words["sealOpenedDegraded"])
            default: #expect(screen.sealText == "", "\(expected.name): no information is never shown as a seal: \(screen)")
            }
            #expect(screen.theft == (expected.theft ? "reported" : "none"), "\(expected.name): \(screen)")
            #expect(screen.theftText == (expected.theft ? words["theft"] : ""), "\(expected.name): \(screen)")
            if expected.product {
                let name = try #require(verdict["product_name"]?.stringValue)
                #expect(screen.product.hasPrefix(name), "\(expected.name): \(screen)")
            } else {
                #expect(screen.product == "")
            }
            if expected.area, let city = verdict["scan_area"]?["city"]?.stringValue {
                #expect(screen.area.hasPrefix(words["area"]!) && screen.area.contains(city), "\(expected.name): \(screen)")
            } else {
                #expect(screen.area == "")
            }
        }

        #expect(Set(neutralIcons.values).count == neutralIcons.count, "one sign for several states: \(neutralIcons)")

        try station.send(ClientCommand(id: "watch", action: .watch([.readError])))
        try rig.showUnreadableCode()
        var readError: JSON?
        while readError == nil, let message = await station.next() {
            if message.type == .event(.readError) { readError = message.json }
        }
        let error = try #require(readError)
        let screen = try await page.waitForSeq(try #require(error["seq"]?.integerValue))
        try await page.screenshot(to: testOutputDirectory() + "/\(language)-read-error.png")
        #expect(screen.outcome == "read_error")
        #expect(screen.message == error["message"]?.stringValue && !screen.message.isEmpty, "\(screen)")
        #expect(screen.seal == "none" && screen.theft == "none" && screen.tone == "neutral")
        // Bytes that are not text: "It is not a SealTrust code", and the sign says so, not "read again".
        #expect(error["reason"] == "invalid_utf8" && screen.icon == neutralIcons["not_sealtrust"], "\(screen.icon) \(neutralIcons)")
        // The daemon's sentence says what to do ("Hold the tag still and try again."): nothing repeats it under it.
        #expect(try await page.evaluate("document.getElementById('hint').textContent") == "", "\(screen)")
    }

    @Test func theVerdictGoesBackToIdleAfterHold() async throws {
        let rig = try StationRig(hold: 2)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        _ = try await page.waitForOutcome("idle")
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "hold")
        _ = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        let shown = ContinuousClock.now
        let idle = try await page.waitForOutcome("idle", timeout: .seconds(6))
        let held = ContinuousClock.now - shown
        #expect(held >= .milliseconds(1_700) && held <= .milliseconds(3_500), "held for \(held), asked 2 s")
        #expect(idle.message == "Tap a tag or show a code" && idle.product == "")
    }

    @Test func aPageOpenedAfterTheVerdictShowsItAndOneOpenedWhileTheDaemonIsAwayShowsOffline() async throws {
        let rig = try StationRig(hold: 30)
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "before-the-page")
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        let screen = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(screen.outcome == "identified" && screen.message == verdict["message"]?.stringValue, "\(screen)")
        #expect(screen.product.hasPrefix(try #require(verdict["product_name"]?.stringValue)), "\(screen)")
        try await page.screenshot(to: testOutputDirectory() + "/en-opened-after-the-verdict.png")

        rig.stopDaemon()
        _ = try await page.waitForOutcome("offline")
        let offline = try await browser.open(rig.pageURL)
        #expect(try await offline.waitForOutcome("offline").message == "Station offline", "a page opened while the daemon is away")
    }

    @Test func withoutLangThePageSpeaksTheDaemonsLanguage() async throws {
        let rig = try StationRig(language: "fr", kioskFollowsDaemon: true, hold: 30)
        // The bridge learns the daemon's language from its hello: served once it reaches the daemon.
        let deadline = ContinuousClock.now + .seconds(20)
        while try httpGet(port: rig.kiosk.port, path: "/healthz").status != 200 {
            guard ContinuousClock.now < deadline else { throw HarnessError("the bridge never reached the daemon") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        let idle = try await page.waitForOutcome("idle")
        #expect(idle.message == Self.words["fr"]!["idle"], "\(idle)")
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify(try mintChipURL("authentic", counter: 40), on: station, id: "fr")
        let screen = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(screen.message == verdict["message"]?.stringValue && screen.seal == "intact", "\(screen)")
    }

    /// `lang = fr` and `systemctl reload`: an open page speaks French from then on, its own words and the daemon's.
    @Test func aReloadedLanguageReachesAnOpenPage() async throws {
        let rig = try StationRig(language: "en", kioskFollowsDaemon: true, hold: 30, languageInConfigFile: true)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        #expect(try await page.waitForOutcome("idle").message == Self.words["en"]!["idle"])
        try await page.markDocument()

        try rig.reloadDaemon(language: "fr")
        _ = try await page.waitForNewDocument()
        let idle = try await page.waitForOutcome("idle")
        #expect(try await page.evaluate("document.documentElement.lang") == "fr")
        #expect(idle.message == Self.words["fr"]!["idle"], "\(idle)")
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify(try mintChipURL("authentic", counter: 41), on: station, id: "reloaded")
        let screen = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(verdict["message"]?.stringValue?.hasPrefix("Produit authentique") == true, "the daemon speaks French: \(verdict)")
        #expect(screen.message == verdict["message"]?.stringValue && screen.seal == "intact", "\(screen)")
    }

    @Test func aStoppedDaemonShowsStationOfflineAndTheNextVerdictComesWithoutReload() async throws {
        let rig = try StationRig(hold: 30)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        _ = try await page.waitForOutcome("idle")
        try await page.evaluate("window.sameDocument = 'yes'")

        rig.stopDaemon()
        let offline = try await page.waitForOutcome("offline")
        #expect(offline.message == "Station offline")
        try await page.screenshot(to: testOutputDirectory() + "/en-station-offline.png")
        let health = try httpGet(port: rig.kiosk.port, path: "/healthz")
        #expect(health.status == 503 && health.body.contains("daemon unreachable"))

        try rig.startDaemon()
        _ = try await page.waitForOutcome("idle", timeout: .seconds(20))
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "back")
        let screen = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(screen.outcome == "identified")
        #expect(try await page.evaluate("window.sameDocument").stringValue == "yes", "the page was not reloaded")
        #expect(rig.kiosk.isRunning)
    }
}
