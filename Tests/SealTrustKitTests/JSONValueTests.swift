import Foundation
import SealTrustKit
import Testing

@Suite("JSONValue: any JSON value, read and written back compactly")
struct JSONValueTests {
    @Test func decodesEveryKindOfValue() throws {
        let text = #"{"s": "a/b \u00e9", "i": 42, "d": 0.5, "t": true, "n": null, "l": [1, "x"], "o": {"k": false}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value["s"] == .string("a/b é"))
        #expect(value["i"] == .int(42) && value["d"] == .double(0.5) && value["t"] == .bool(true) && value["n"] == .null)
        #expect(value["l"] == .array([.int(1), .string("x")]))
        #expect(value["o"]?["k"] == .bool(false))
        #expect(value["missing"] == nil && value["s"]?["k"] == nil)
    }

    @Test func compactTextEscapesOnlyWhatJSONRequires() throws {
        let value = JSONValue.object(["url": .string("https://sealtrust.io/c?a=\"q\"\\\n\u{1}é/"), "n": .array([.int(-3), .double(1.25), .null])])
        #expect(value.compactText == #"{"n":[-3,1.25,null],"url":"https://sealtrust.io/c?a=\"q\"\\\n\u0001é/"}"#)
        let back = try JSONDecoder().decode(JSONValue.self, from: Data(value.compactText.utf8))
        #expect(back == value)
    }
}
