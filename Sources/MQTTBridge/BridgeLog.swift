import Logging

/// The bridge's lines for people on stderr. A stderr that is closed or whose reader has gone
/// (`2>&1 >/dev/null | head -1`) loses the line and nothing else: the bridge goes on.
let bridgeLog = Logger(program: "sealtrust-mqtt", level: .info)

extension String {
    /// Text from outside (the daemon, the broker, OpenSSL) with its control characters escaped.
    var printable: String { TerminalText.escaped(self) }
}
