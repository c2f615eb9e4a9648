import Glibc
import POSIXSupport
import Synchronization

/// Lines for people on stderr, for every program of the station. Under journald (JOURNAL_STREAM set) each carries its
/// syslog priority as `<N>` and nothing else, since journald names the program; elsewhere `program: severity: text`.
/// Outside text in a line (a reader's name, an API's detail) reaches it with its control characters escaped.
///
/// Callers never pass a token, a claim nonce or a password: nothing secret reaches this type.
public final class Logger: Sendable {
    public enum Severity: Sendable {
        case error, warning, notice, info, debug

        var syslogPriority: Int {
            switch self {
            case .error: 3
            case .warning: 4
            case .notice: 5
            case .info: 6
            case .debug: 7
            }
        }

        var label: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }

        /// Notice sits between warning and info, as in syslog.
        func isShown(at level: LogLevel) -> Bool {
            switch self {
            case .error: true
            case .warning: level >= .warning
            case .notice, .info: level >= .info
            case .debug: level >= .debug
            }
        }
    }

    private let state: Mutex<LogLevel>
    private let program: String
    private let underJournald: Bool
    /// Where whole lines go: stderr, or what a test reads.
    private let output: @Sendable (String) -> Void

    /// `environment`: where JOURNAL_STREAM is looked for; nil, the process's own (read without Foundation, which the
    /// bridges and scanctl do not link). A stderr that is closed or whose reader has gone loses the line and nothing else.
    public init(program: String, level: LogLevel, environment: [String: String]? = nil,
                output: @escaping @Sendable (String) -> Void = { line in
                    // A log line that cannot be written has nowhere else to go.
                    try? FileDescriptor.writeAll(2, line.utf8)
                }) {
        state = Mutex(level)
        self.program = program
        let journalStream = environment.map { $0["JOURNAL_STREAM"] } ?? getenv("JOURNAL_STREAM").map { String(cString: $0) }
        underJournald = journalStream.map { !$0.isEmpty } ?? false
        self.output = output
    }

    public var level: LogLevel {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    public func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public func notice(_ message: @autoclosure () -> String) { write(.notice, message) }
    public func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    public func log(_ severity: Severity, _ message: @autoclosure () -> String) { write(severity, message) }

    private func write(_ severity: Severity, _ message: () -> String) {
        guard severity.isShown(at: level) else { return }
        let text = TerminalText.escaped(message())
        let line = underJournald
            ? "<\(severity.syslogPriority)>\(text)\n"
            : "\(program): \(severity.label): \(text)\n"
        output(line)
    }
}
