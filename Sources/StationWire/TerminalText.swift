/// Outside text made safe for a terminal or a log line.
public enum TerminalText {
    private static let hexDigits = Array("0123456789abcdef")

    /// Each control character (C0, DEL and C1: ESC, BEL, CR, LF...) as a visible escape such as `\x1b`
    /// (`\u009b` for C1); every other character as it is.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            let value = Int(scalar.value)
            result += value < 0x80 ? "\\x" : "\\u00"
            result.append(hexDigits[value >> 4])
            result.append(hexDigits[value & 0x0F])
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
