/// How much a program logs (the daemon's `--log-level`): each level shows its own lines and those of the levels before it.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case error, warning, info, debug

    var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        case .debug: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
