import FoundationEssentials

/// RFC 3339 times as the API writes them, with or without fractional seconds.
enum RFC3339 {
    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }
}
