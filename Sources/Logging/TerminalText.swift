/// Outside text made safe for a terminal or a log line.
public enum TerminalText {
    private static let hexDigits = Array("0123456789abcdef")

    /// Each control character as a visible escape: C0, DEL and C1 (ESC, BEL, CR, LF...) as `\x1b` (`\u009b` for C1),
    /// and the bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE, the isolates, the marks) as `\u202e`, which
    /// would otherwise reorder what a terminal shows around them; every other character as it is.
    /// `escaped`, of the first `limit` characters: a device's name or a server's text can be of any length.
    public static func escaped(_ text: some StringProtocol, keepingAtMost limit: Int) -> String {
        escaped(String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))))
    }

    public static func escaped(_ text: String) -> String {
        guard containsControl(text) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            let value = Int(scalar.value)
            result += value < 0x80 ? "\\x" : "\\u"
            if value >= 0x80 {
                result.append(hexDigits[value >> 12 & 0x0F])
                result.append(hexDigits[value >> 8 & 0x0F])
            }
            result.append(hexDigits[value >> 4 & 0x0F])
            result.append(hexDigits[value & 0x0F])
        }
        return result
    }

    /// Whether `escaped` would change `text`.
    public static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        // ARABIC LETTER MARK, LEFT-TO-RIGHT and RIGHT-TO-LEFT MARK, the embeddings and overrides, the isolates.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
