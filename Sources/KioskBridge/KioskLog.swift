import Glibc

/// Lines for people on stderr, with the syslog priority journald reads (`<4>`). Callers pass only printable text.
public struct KioskLog: Sendable {
    public init() {}

    public func info(_ line: String) { write(6, line) }
    public func warning(_ line: String) { write(4, line) }
    public func error(_ line: String) { write(3, line) }

    private func write(_ priority: Int, _ line: String) {
        let bytes = Array("<\(priority)>sealtrust-kiosk: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
