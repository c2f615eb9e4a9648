import Glibc
import StationWire

/// Whole lines straight to the descriptors: each event is out as soon as it is printed,
/// even into a pipe, and no C stdio global is touched.
enum Output {
    static func line(_ text: String) {
        writeAll(1, text + "\n")
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
