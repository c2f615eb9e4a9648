import JSONCore
import Testing

@Suite("JSON: any JSON value of an answer, read and written back compactly by the project's one JSON type")
struct AnswerValueTests {
    @Test func decodesEveryKindOfValue() throws {
        let text = #"{"s": "a/b \u00e9", "i": 42, "d": 0.5, "t": true, "n": null, "l": [1, "x"], "o": {"k": false}}"#
        let value = try JSON.parse(utf8: Array(text.utf8))
        #expect(value["s"] == .string("a/b é"))
        #expect(value["i"] == .int(42) && value["d"] == .double(0.5) && value["t"] == .bool(true) && value["n"] == .null)
        #expect(value["l"] == .array([.int(1), .string("x")]))
        #expect(value["o"]?["k"] == .bool(false))
        #expect(value["missing"] == nil && value["s"]?["k"] == nil)
    }

    @Test func encodingEscapesOnlyWhatJSONRequires() throws {
        let value = JSON.object([("n", .array([.int(-3), .double(1.25), .null])), ("url", .string("https://sealtrust.io/c?a=\"q\"\\\n\u{1}é/"))])
        #expect(value.encoded() == #"{"n":[-3,1.25,null],"url":"https://sealtrust.io/c?a=\"q\"\\\n\u0001é/"}"#)
        let back = try JSON.parse(value.encoded())
        #expect(back == value)
    }

    /// One writer: a whole number reads the same in a request body as in an event, whatever its Swift type.
    @Test func aWholeNumberIsWrittenTheSameWayAsAnIntegerOrADouble() {
        #expect(JSON.object([("a", .int(5)), ("b", .double(5))]).encoded() == #"{"a":5,"b":5}"#)
    }
}

/// A document's values are bounded when the caller says so: each is a heap box once parsed.
@Test func aValueLimitRefusesALongListBeforeBuildingIt() throws {
    let zeros = "[" + Array(repeating: "0", count: 1_000).joined(separator: ",") + "]"
    #expect(try JSON.parse(zeros, valueLimit: 1_001).arrayValue?.count == 1_000)
    #expect(throws: JSONParseError.self) { try JSON.parse(zeros, valueLimit: 1_000) }
    do { _ = try JSON.parse(zeros, valueLimit: 10) } catch { #expect(error.reason == "more than 10 values") }
}
