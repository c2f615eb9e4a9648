import JSONCore
import Testing

@Suite struct JSONTests {
    @Test func encodingKeepsKeyOrderAndEscapesOnlyWhatItMust() {
        let value: JSON = .object([
            ("type", "scan"), ("seq", 7), ("raw", .string("a\"b\\c\n\t\u{01}é✓ 🙂/")), ("ok", true), ("none", nil),
            ("list", [1, .double(2.5), .string("x")]),
        ])
        #expect(
            value.encoded()
                == #"{"type":"scan","seq":7,"raw":"a\"b\\c\n\t\u0001é✓ 🙂/","ok":true,"none":null,"list":[1,2.5,"x"]}"#)
    }

    @Test func parsingRoundTripsEveryScannedStringByteForByte() throws {
        let strings = [
            "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086",
            "  leading and trailing spaces  ", "tab\there", "ünïcödé ✓ 🙂", "quote \" backslash \\ slash /",
            "\u{7F}\u{1F}\r\n",
        ]
        for text in strings {
            let line = JSON.object([("raw", .string(text))]).encoded()
            #expect(try JSON.parse(line)["raw"] == .string(text))
        }
    }

    @Test func parsingReadsEscapesAndNumbers() throws {
        let value = try JSON.parse(#" {"a":"\u00e9\ud83d\ude42\/","b":-12,"c":1.5e2,"d":[],"e":{},"f":false} "#)
        #expect(value["a"] == "é🙂/")
        #expect(value["b"] == .int(-12))
        #expect(value["c"] == .double(150))
        #expect(value["d"] == .array([]))
        #expect(value["e"] == .object([]))
        #expect(value["f"] == false)
        #expect(value["missing"] == nil)
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1,]", "{'a':1}", "{\"a\":01}", "{\"a\":1}x", "\"tab\tinside\"",
        "\"\\ud800\"", "\"\\x\"", "NaN", "{\"a\" 1}", "[1 2]", "tru", "-", "1.", ".5",
    ])
    func parsingRejectsWhatIsNotStrictJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func parsingRefusesNestingDeepEnoughToExhaustTheStack() {
        #expect(throws: JSONParseError.self) { try JSON.parse(String(repeating: "[", count: 100_000)) }
        #expect(throws: Never.self) { try JSON.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) }
    }

    @Test func parsingRejectsBytesThatAreNotUTF8() {
        #expect(throws: JSONParseError.self) { try JSON.parse(utf8: [0x22, 0xFF, 0x22]) }
    }
}
