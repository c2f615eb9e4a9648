/// Why a text is not JSON, and where (a byte offset into its UTF-8).
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSON {
    /// Strict RFC 8259 JSON: one value, optional surrounding whitespace, nothing else. `valueLimit`: the most values
    /// (scalars and containers) the document may hold; each costs a heap box, so a 1 MiB list of zeros is tens of
    /// megabytes parsed, and a limit bounds that by the document's meaning, not its size.
    public static func parse(_ text: some StringProtocol, valueLimit: Int = .max) throws(JSONParseError) -> JSON {
        var bytes = Array(text.utf8)
        bytes.append(0)
        var parser = JSONParser(bytes: bytes, end: bytes.count - 1, valueLimit: valueLimit)
        return try parser.parseDocument()
    }

    /// Parses bytes that may not even be UTF-8 (a client's line).
    public static func parse(utf8 bytes: some Collection<UInt8>, valueLimit: Int = .max) throws(JSONParseError) -> JSON {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONParseError(offset: 0, reason: "not valid UTF-8")
        }
        return try parse(text, valueLimit: valueLimit)
    }
}

/// A recursive-descent parser over a NUL-terminated byte array.
struct JSONParser {
    /// Deep enough for any real message, shallow enough that `[[[[...` cannot exhaust the stack.
    static let maximumDepth = 256

    let bytes: [UInt8]
    let end: Int
    let valueLimit: Int
    var position = 0
    var depth = 0
    var values = 0

    init(bytes: [UInt8], end: Int, valueLimit: Int = .max) {
        self.bytes = bytes
        self.end = end
        self.valueLimit = valueLimit
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == end else { throw failure("unexpected data after the value") }
        return value
    }

    private func failure(_ reason: String) -> JSONParseError {
        JSONParseError(offset: position, reason: reason)
    }

    private var current: UInt8 { bytes[position] }

    private mutating func skipWhitespace() {
        while position < end, [0x20, 0x09, 0x0A, 0x0D].contains(current) { position += 1 }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        guard position < end else { throw failure("unexpected end") }
        values += 1
        guard values <= valueLimit else { throw failure("more than \(valueLimit) values") }
        switch current {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        let expected = Array(literal.utf8)
        guard end - position >= expected.count else { throw failure("unexpected end") }
        guard bytes[position..<position + expected.count].elementsEqual(expected) else {
            throw failure("invalid literal")
        }
        position += expected.count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw failure("nested too deeply") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSON {
        var members: [(String, JSON)] = []
        try parseItems(closing: UInt8(ascii: "}")) { (parser: inout Self) throws(JSONParseError) in
            guard parser.position < parser.end, parser.current == UInt8(ascii: "\"") else { throw parser.failure("expected a key") }
            let key = try parser.parseString()
            parser.skipWhitespace()
            guard parser.position < parser.end, parser.current == UInt8(ascii: ":") else { throw parser.failure("expected ':'") }
            parser.position += 1
            parser.skipWhitespace()
            members.append((key, try parser.parseValue()))
        }
        return .object(members)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSON {
        var items: [JSON] = []
        try parseItems(closing: UInt8(ascii: "]")) { (parser: inout Self) throws(JSONParseError) in
            items.append(try parser.parseValue())
        }
        return .array(items)
    }

    /// An object's or an array's body, from its opening character to its `closing` one: the items `item` reads,
    /// separated by commas.
    private mutating func parseItems(closing: UInt8, _ item: (inout Self) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        position += 1
        skipWhitespace()
        if position < end, current == closing {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            // A comma before the closing character: JSON has none, and a person who wrote one should be told that.
            if position < end, current == closing { throw failure("a comma before '\(Character(Unicode.Scalar(closing)))'") }
            try item(&self)
            skipWhitespace()
            guard position < end else { throw failure("unexpected end") }
            if current == UInt8(ascii: ",") {
                position += 1
            } else if current == closing {
                position += 1
                return
            } else {
                throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var output: [UInt8] = []
        while true {
            guard position < end else { throw failure("unterminated string") }
            let byte = current
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &output)
            case 0x00..<0x20:
                throw failure("control character in a string")
            default:
                output.append(byte)
                position += 1
            }
        }
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard position < end else { throw failure("unterminated escape") }
        let byte = current
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard end - position >= 6, current == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate") }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            position -= 1
            throw failure("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard end - position >= 4 else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = current
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard position < end, isDigit(current) else { throw failure("invalid number") }
        if current == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < end, isDigit(current) { position += 1 }
        }
        if position < end, current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < end, isDigit(current) else { throw failure("invalid number") }
            while position < end, isDigit(current) { position += 1 }
        }
        if position < end, current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < end, current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard position < end, isDigit(current) else { throw failure("invalid number") }
            while position < end, isDigit(current) { position += 1 }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw failure("invalid number") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
