import Glibc
import Logging
import StationWire

/// Whole lines straight to the descriptors: each event is out as soon as it is printed,
/// even into a pipe, and no C stdio global is touched.
enum Output {
    static func line(_ text: String) {
        writeAll(1, text + "\n")
    }

    /// Alerts stand out in bold red, only on a terminal and only when `NO_COLOR` is unset or empty (no-color.org).
    static let colours: Bool = {
        guard isatty(1) == 1, let term = getenv("TERM").map({ String(cString: $0) }), term != "dumb" else { return false }
        return getenv("NO_COLOR").map { String(cString: $0).isEmpty } ?? true
    }()

    static func alert(_ text: String) {
        line(colours ? "\u{1B}[1;31m" + text + "\u{1B}[0m" : text)
    }

    /// One line on stderr; the daemon's words in it (a refusal's detail) cannot reach the terminal as controls.
    static func complain(_ text: String) {
        writeAll(2, "sealtrust-scanctl: \(TerminalText.escaped(text))\n")
    }

    static func usage() {
        writeAll(2, Invocation.usage + "\n")
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return }
            written += result
        }
    }
}
