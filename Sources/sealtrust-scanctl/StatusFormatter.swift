import JSONCore

/// The `status` answer, one fact a line (`name: value`), so an operator can read it and `grep` it.
enum StatusFormatter {
    static func lines(for status: JSON) -> [String] {
        var lines: [String] = []
        // A fact with nothing to say (a station without lanes sends `"lanes":[]`) is no line.
        func fact(_ name: String, _ value: String?) {
            if let value, !value.isEmpty { lines.append("\(name): \(value)") }
        }
        fact("daemon", status["version"]?.stringValue.map { "sealtrust-scand \($0)" })
        fact("station", status["station"]?.stringValue)
        fact("language", status["lang"]?.stringValue)
        fact("up", status["uptime_s"]?.integerValue.map(duration))
        for source in status["sources"]?.arrayValue ?? [] {
            var parts = ["medium", "state", "detail"].compactMap { source[$0].map(plain) }
            if let last = source["last_scan_at"].map(plain) { parts.append("last scan \(last)") }
            fact("source \(source["id"].map(plain) ?? "?")", parts.joined(separator: ", "))
        }
        if let counters = status["counters"]?.objectValue {
            for (name, value) in counters { fact(name.replacingUnderscores, plain(value)) }
        }
        if let deferred = status["deferred"], let count = deferred["count"]?.integerValue {
            let oldest = deferred["oldest_age_s"]?.integerValue.map { ", the oldest \(duration($0)) ago" } ?? ""
            fact("deferred", "\(count) waiting for the API\(oldest)")
        }
        fact("last api error", status["last_api_error"].map(plain))
        fact("token", status["token"]?.stringValue)
        fact("clients", status["clients"]?.integerValue.map { String($0) })
        fact("last seq", status["last_seq"]?.integerValue.map { String($0) })
        let known: Set<String> = [
            "type", "id", "version", "station", "lang", "uptime_s", "sources", "counters", "deferred", "last_api_error", "token", "clients", "last_seq",
        ]
        for (key, value) in status.objectValue ?? [] where !known.contains(key) {
            fact(key.replacingUnderscores, plain(value))
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
