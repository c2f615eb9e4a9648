import JSONCore

/// The `status` answer as a few readable lines.
enum StatusFormatter {
    static func lines(for status: JSON) -> [String] {
        var lines: [String] = []
        var summary: [String] = []
        if let version = status["version"]?.stringValue { summary.append("sealtrust-scand \(version)") }
        if let uptime = status["uptime_s"]?.integerValue { summary.append("up \(duration(uptime))") }
        if let clients = status["clients"]?.integerValue { summary.append("\(clients) client\(clients == 1 ? "" : "s")") }
        if let lastSeq = status["last_seq"]?.integerValue { summary.append("last seq \(lastSeq)") }
        lines.append(summary.joined(separator: ", "))
        for source in status["sources"]?.arrayValue ?? [] {
            let parts = ["id", "medium", "state", "detail"].compactMap { source[$0].map(plain) }
            lines.append("source " + parts.joined(separator: "  "))
        }
        if let counters = status["counters"]?.objectValue {
            lines.append(counters.map { "\($0.0.replacingUnderscores) \(plain($0.1))" }.joined(separator: ", "))
        }
        let known: Set<String> = ["type", "id", "version", "uptime_s", "clients", "last_seq", "sources", "counters"]
        for (key, value) in status.objectValue ?? [] where !known.contains(key) {
            lines.append("\(key.replacingUnderscores) \(plain(value))")
        }
        return lines
    }

    /// A value without JSON's quotes and braces, for reading.
    static func plain(_ value: JSON) -> String {
        switch value {
        case .string(let text): return text
        case .object(let members):
            return members.map { "\($0.0.replacingUnderscores) \(plain($0.1))" }.joined(separator: ", ")
                .wrapped(members.count > 1)
        case .array(let items): return items.map(plain).joined(separator: ", ")
        default: return value.encoded()
        }
    }

    static func duration(_ seconds: Int64) -> String {
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        if hours > 0 { return "\(hours)h \(minutes)m \(rest)s" }
        if minutes > 0 { return "\(minutes)m \(rest)s" }
        return "\(rest)s"
    }
}

extension String {
    fileprivate var replacingUnderscores: String { split(separator: "_", omittingEmptySubsequences: false).joined(separator: " ") }

    fileprivate func wrapped(_ needed: Bool) -> String { needed ? "(\(self))" : self }
}
