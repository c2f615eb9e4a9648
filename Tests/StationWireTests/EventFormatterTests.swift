import JSONCore
import Logging
import StationWire
import Testing

@Suite struct EventFormatterTests {
    @Test func everyControlCharacterOfOutsideTextIsShownAsAnEscape() throws {
        var formatter = EventFormatter()
        let raw = "https://x.example/\u{1B}[2J\u{07}\r\nforged line\u{7F}\u{9B}31m"
        let scan = JSON.object([
            ("type", "scan"), ("seq", 3), ("at", "2026-12-01T10:00:00.000Z"), ("scan_id", "s1"),
            ("source", .string("nfc:A\u{07}")), ("code", "foreign"), ("raw", .string(raw)),
        ])
        let formatted = formatter.line(for: scan)
        let line = try #require(formatted)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line.contains(#"nfc:A\x07"#))
        #expect(line.contains(#"https://x.example/\x1b[2J\x07\x0d\x0aforged line\x7f\u009b31m"#))
    }

    @Test func aVerdictLineNamesTheSourceOfItsScanAndTheScreensSentence() throws {
        var formatter = EventFormatter()
        _ = formatter.line(for: try JSON.parse(#"{"type":"scan","seq":1,"at":"x","scan_id":"s1","source":"nfc:R","code":"chip","raw":"u"}"#))
        let verdict = VerdictEvent(scanID: "s1", source: "nfc:R", medium: .nfc, outcome: .authentic, message: "Authentic.")
        let formatted = formatter.line(for: .object([("type", "verdict"), ("seq", 2), ("at", "x")] + verdict.fields))
        let line = try #require(formatted)
        #expect(line.contains("#2 verdict nfc:R  authentic"))
        #expect(line.contains("\"Authentic.\""))
    }

    /// A late verdict says which `deferred` verdict it ends; the `deferred` one reads as what it is.
    @Test func aLateVerdictNamesTheDeferredVerdictItEnds() throws {
        var formatter = EventFormatter()
        var verdict = VerdictEvent(scanID: "s1", source: "nfc:R", medium: .nfc, outcome: .deferred, message: "Recorded.")
        let deferredLine = formatter.line(for: .object([("type", "verdict"), ("seq", 2), ("at", "x")] + verdict.fields))
        let deferred = try #require(deferredLine)
        #expect(deferred.contains("#2 verdict nfc:R  deferred  \"Recorded.\""), "\(deferred)")
        verdict.outcome = .authentic
        verdict.deferredSeq = 2
        #expect(verdict.fields.suffix(2).map(\.0) == ["late", "deferred_seq"])
        let lateLine = formatter.line(for: .object([("type", "verdict"), ("seq", 9), ("at", "x")] + verdict.fields))
        let late = try #require(lateLine)
        #expect(late.contains("#9 verdict nfc:R  authentic  late, for #2"), "\(late)")
    }

    /// Found by fuzz/event-formatter: a whole number past Int64 trapped in the conversion that drops ".0".
    @Test func aNumberBeyondInt64IsPrintedNotATrap() throws {
        var formatter = EventFormatter()
        let hello = try #require(formatter.line(for: try JSON.parse(#"{"type":"hello","station":"s","last_seq":1e300}"#)))
        #expect(hello.hasSuffix("last seq 1e+300"))
        let scan = try #require(formatter.line(for: try JSON.parse(#"{"type":"scan","seq":-9.3e18,"at":"x","source":"a","raw":"b"}"#)))
        #expect(scan.contains("#-9.3e+18 scan"))
    }

    /// U+202E (right-to-left override) in a scanned string made the terminal show what followed it reversed: each
    /// bidirectional control is an escape too.
    @Test func bidirectionalControlsAreShownAsEscapes() throws {
        var formatter = EventFormatter()
        let raw = "https://x.example/\u{202E}fdp.exe\u{2066}\u{2069}\u{200F}\u{061C}"
        let scan = JSON.object([
            ("type", "scan"), ("seq", 3), ("at", "2026-12-01T10:00:00.000Z"), ("scan_id", "s1"),
            ("source", "hid:scanner"), ("code", "foreign"), ("raw", .string(raw)),
        ])
        let formatted = formatter.line(for: scan)
        let line = try #require(formatted)
        #expect(line.contains(#"https://x.example/\u202efdp.exe\u2066\u2069\u200f\u061c"#), "\(line.debugDescription)")
        #expect(TerminalText.escaped("\u{202A}\u{202D}\u{200E}\u{2067}\u{2068}") == #"\u202a\u202d\u200e\u2067\u2068"#)
    }

    @Test func textWithoutControlsIsLeftAsItIs() {
        #expect(TerminalText.escaped("ünïcödé ✓ \\x1b") == "ünïcödé ✓ \\x1b")
    }
}
