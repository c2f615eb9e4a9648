import Glibc

/// Lines for people on stderr. Under journald (JOURNAL_STREAM set, as the daemon decides) each carries its syslog
/// priority as `<N>`, which journald reads; on a terminal or in a file it would only be noise. Callers pass only
/// printable text.
public struct KioskLog: Sendable {
    let underJournald: Bool

    public init(underJournald: Bool = getenv("JOURNAL_STREAM").map { $0.pointee != 0 } ?? false) {
        self.underJournald = underJournald
    }

    public func info(_ line: String) { write(6, line) }
    public func warning(_ line: String) { write(4, line) }
    public func error(_ line: String) { write(3, line) }

    private func write(_ priority: Int, _ line: String) {
        let bytes = Array("\(underJournald ? "<\(priority)>" : "")sealtrust-kiosk: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
