import Glibc
import POSIXSupport

/// One line for people on stderr; under journald (JOURNAL_STREAM set) it carries its syslog priority as `<N>`.
/// Callers never pass a password: nothing secret reaches this type. A stderr that is closed or whose reader has gone
/// (`2>&1 >/dev/null | head -1`) loses the line and nothing else: the bridge goes on.
enum LogLine {
    private static let underJournald = getenv("JOURNAL_STREAM") != nil

    static func error(_ text: String) { write(3, "error", text) }
    static func warning(_ text: String) { write(4, "warning", text) }
    static func notice(_ text: String) { write(5, "notice", text) }

    private static func write(_ priority: Int, _ label: String, _ text: String) {
        let line = underJournald ? "<\(priority)>\(text)\n" : "sealtrust-mqtt: \(label): \(text)\n"
        try? FileDescriptor.writeAll(2, line.utf8)
    }
}

extension String {
    /// Text from outside (the daemon, the broker, OpenSSL) with its control characters shown as `\u{..}` escapes.
    var printable: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
