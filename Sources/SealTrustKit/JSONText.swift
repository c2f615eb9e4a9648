/// A minimal JSON writer: strings are escaped as JSON requires and otherwise
/// left exactly as given (no `\/`, no `\u` for non-ASCII), so a request body
/// carries the scanned URL byte for byte.
enum JSONText {
    static func encode(_ value: JSONValue) -> String {
        var text = ""
        write(value, into: &text)
        return text
    }

    /// An object with its members in the order given.
    static func object(_ members: [(String, JSONValue)]) -> String {
        var text = "{"
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { text += "," }
            writeString(name, into: &text)
            text += ":"
            write(value, into: &text)
        }
        return text + "}"
    }

    private static func write(_ value: JSONValue, into text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .double(let number): text += number.isFinite ? "\(number)" : "null"
        case .string(let string): writeString(string, into: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                write(element, into: &text)
            }
            text += "]"
        case .object(let members):
            text += object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }

    private static func writeString(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
