extension JSON {
    /// Compact, one line, no trailing newline.
    ///
    /// Only `"`, `\` and control characters are escaped; everything else,
    /// non-ASCII included, is written as its own UTF-8, so a scanned string
    /// reads back byte for byte.
    public func encoded() -> String {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        encoded(into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the compact encoding to `output`: what a server sends without making a String first.
    public func encoded(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value):
            if !value.isFinite {
                output.append(contentsOf: "null".utf8)
            } else if value.rounded() == value && abs(value) < 1e15 {
                output.append(contentsOf: String(Int64(value)).utf8)
            } else {
                output.append(contentsOf: "\(value)".utf8)
            }
        case .string(let text): JSON.writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.encoded(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSON.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                value.encoded(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
