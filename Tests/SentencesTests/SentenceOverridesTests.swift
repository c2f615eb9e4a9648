import Foundation
import Sentences
import Testing

/// The `texts` file: sentences by id in each language; anything else refused, naming what is wrong.
struct SentenceOverridesTests {
    static func read(_ text: String) throws(SentenceOverrides.Refusal) -> SentenceOverrides {
        try SentenceOverrides.read(Array(text.utf8))
    }

    @Test func sentencesAreReplacedByIdInEachLanguage() throws {
        let overrides = try Self.read(#"{"en": {"authentic": "Genuine.", "kiosk.idle": "Tap here"}, "fr": {"authentic": "Authentique."}}"#)
        #expect(overrides.replacing(in: "en") == [.authentic: "Genuine.", .kioskIdle: "Tap here"])
        #expect(overrides.replacing(in: "fr") == [.authentic: "Authentique."])
        #expect(try Self.read("{}").replacing(in: "en").isEmpty)
    }

    @Test(arguments: [
        (#"{"en": {"authentik": "x"}}"#, #"unknown sentence id "authentik" in en"#),
        (#"{"de": {"authentic": "x"}}"#, #"unknown language "de""#),
        (#"{"en": ["authentic"]}"#, "en must be an object"),
        (#"{"en": {"authentic": 3}}"#, "en.authentic must be a sentence"),
        (#"{"en": {"authentic": ""}}"#, "en.authentic must be a sentence"),
        (#"{"en": {"authentic": "a\u0007"}}"#, "en.authentic holds a control character"),
        (#"{"fr": {"replay": "\u202eeuqitnehtua"}}"#, "fr.replay holds a control character"),
        ("[1]", "not a JSON object of languages"),
        (#"{"en": {"authentic": "Genuine.", "authentic": "Real."}}"#, "en.authentic is given twice"),
        (#"{"en": {}, "fr": {}, "en": {"authentic": "Genuine."}}"#, "en is given twice"),
    ])
    func aBadFileIsRefusedSayingWhy(text: String, reason: String) {
        do {
            _ = try Self.read(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    static let syntaxErrors: [(bytes: [UInt8], reason: String)] = [
        (Array("{\"en\": {\n  \"authentic\": \"Genuine.\",\n}}".utf8), "line 3, column 1: a comma before '}'"),
        (Array("{\"en\": {\"authentic\": \"Genuine.\"}\n\"fr\": {}}".utf8), "line 2, column 1: expected ',' or '}'"),
        ([0xEF, 0xBB, 0xBF] + Array("{}".utf8), "begins with a UTF-8 byte order mark"),
        (Array("{\"en\":\n {\"authentic\": \"Gen".utf8) + [0xFF] + Array("\"}}".utf8), "invalid UTF-8 at byte 27 (line 2, column 20): 0xFF"),
    ]

    /// A syntax error is said with its line and column, a byte order mark and bytes that are not UTF-8 by name: never
    /// "not a JSON object", which sends an operator looking for what is not wrong.
    @Test(arguments: syntaxErrors)
    func aSyntaxErrorSaysWhereItIs(bytes: [UInt8], reason: String) {
        do {
            _ = try SentenceOverrides.read(bytes)
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func aSentenceOverAThousandBytesOrAFileOver256KiBIsRefused() {
        #expect(throws: SentenceOverrides.Refusal.self) { try Self.read(#"{"en": {"authentic": "\#(String(repeating: "a", count: 1_001))"}}"#) }
        #expect(throws: SentenceOverrides.Refusal.self) { try SentenceOverrides.read([UInt8](repeating: 0x20, count: 256 * 1024 + 1)) }
    }

    /// sealtrust-texts(5) lists every id, and no other.
    @Test func theManPageListsEveryID() throws {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let page = try String(contentsOf: root.appendingPathComponent("man/sealtrust-texts.5"), encoding: .utf8)
        let lines = page.split(separator: "\n").map(String.init)
        let listed = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" && $0.1.hasPrefix(".B ") }
            .map { String($0.1.dropFirst(3)).replacingOccurrences(of: "\\-", with: "-") }
        #expect(listed == SentenceID.allCases.map(\.rawValue))
    }
}
