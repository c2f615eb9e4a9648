import Logging

/// Text from a device (its name) made safe for a log line or a terminal.
func printable(_ text: some StringProtocol, limit: Int = 200) -> String {
    TerminalText.escaped(text, keepingAtMost: limit)
}
