import Foundation
import KioskBridge
import KioskHarness
import Sentences
import StationWire
import Testing
import TestSupport

/// `--texts`: the daemon's file replaces the page's own words by id, and the daemon's sentences reach the page as it
/// replaced them; an unknown id stops the bridge with its name.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct KioskTextsTests {
    @Test func everyKioskIdIsOneOfThePagesWordsInBothLanguages() {
        #expect(Set(KioskWords.fieldsByID.keys) == Set(SentenceID.allCases.filter { $0.rawValue.hasPrefix("kiosk.") }))
        let fields = SentenceFields(of: KioskWords.english, ids: KioskWords.fieldsByID.keys) { $0.replacing($1) }
        #expect(fields.unreached.isEmpty, "words no texts file can replace: \(fields.unreached.sorted())")
        #expect(Set(fields.fieldByID.values.compactMap { $0 }).count == fields.fieldByID.count, "one word an id: \(fields.fieldByID)")
        for (id, field) in KioskWords.fieldsByID {
            #expect(!KioskWords.english[keyPath: field].isEmpty && !KioskWords.french[keyPath: field].isEmpty, "\(id)")
        }
        #expect(KioskWords.english != KioskWords.french)
    }

    @Test func aReplacedSentenceAppearsOnThePage() async throws {
        let scratch = try ScratchDirectory("kiosk-texts")
        let texts = scratch.path + "/texts.json"
        try #"{"en": {"kiosk.idle": "Hold your product to the glass", "not_sealtrust": "Not one of ours.", "kiosk.offline": "Back soon </script><b>"}}"#
            .write(toFile: texts, atomically: true, encoding: .utf8)
        let rig = try StationRig(hold: 30, kioskArguments: ["--texts", texts], daemonArguments: ["--texts", texts])
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        let idle = try await page.waitForOutcome("idle")
        #expect(idle.message == "Hold your product to the glass")
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("plain text", on: station, id: "foreign")
        let screen = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(screen.outcome == "not_sealtrust" && screen.message == "Not one of ours.", "\(screen)")
        let html = try httpGet(port: rig.kiosk.port, path: "/").body
        #expect(html.contains(#"Back soon \u003c/script>\u003cb>"#) && !html.contains("Back soon </script>"), "a sentence cannot end the script")
    }

    /// A kiosk restarted with new words or colours: an open page (which in `--kiosk` never reloads by itself) loads
    /// itself again and shows them; one restarted with the same page is left as it is.
    @Test func anOpenPageTakesTheNewWordsAndColoursOfARestartedKiosk() async throws {
        let scratch = try ScratchDirectory("kiosk-texts-restart")
        let texts = scratch.path + "/texts.json"
        let theme = scratch.path + "/theme.json"
        try #"{"en": {"kiosk.idle": "Hold your product to the glass"}}"#.write(toFile: texts, atomically: true, encoding: .utf8)
        try ##"{"idle": "#123456"}"##.write(toFile: theme, atomically: true, encoding: .utf8)
        let rig = try StationRig(hold: 30)
        let browser = try Chromium()
        let page = try await browser.open(rig.pageURL)
        #expect(try await page.waitForOutcome("idle").message == "Tap a tag or show a code")
        try await page.markDocument()
        try rig.restartKiosk()
        // A verdict shown comes after the new bridge's station event on the page's new stream.
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("plain text", on: station, id: "same")
        _ = try await page.waitForSeq(try #require(verdict["seq"]?.integerValue))
        #expect(try await page.evaluate("window.kioskHarnessMark") == .bool(true), "the same page: not loaded again")

        try rig.restartKiosk(arguments: ["--texts", texts, "--theme", theme])
        let idle = try await page.waitForNewDocument()
        #expect(idle.message == "Hold your product to the glass", "\(idle)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 52, 86)")
    }

    @Test func anUnknownIdStopsTheBridgeWithItsName() throws {
        let scratch = try ScratchDirectory("kiosk-texts-refused")
        let texts = scratch.path + "/texts.json"
        try #"{"fr": {"kiosk.idel": "Présentez"}}"#.write(toFile: texts, atomically: true, encoding: .utf8)
        let output = scratch.path + "/output"
        let refused = try ChildProcess(builtProduct("sealtrust-kiosk"), ["--texts", texts, "--listen", "127.0.0.1:0"], output: .file(output))
        #expect(refused.waitForExit(timeout: .seconds(10)) == 2)
        #expect(refused.printed.contains(#"unknown sentence id "kiosk.idel" in fr"#), "\(refused.printed)")
    }
}
