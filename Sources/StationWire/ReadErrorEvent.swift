import JSONCore

/// A tag or code was seen but could not be read; no API call is made.
public struct ReadErrorEvent: Sendable, Hashable {
    public var source: String
    public var medium: Medium
    public var reason: ReadErrorReason
    public var detail: String
    /// What the screen should say.
    public var message: String

    public init(source: String, medium: Medium, reason: ReadErrorReason, detail: String, message: String) {
        self.source = source
        self.medium = medium
        self.reason = reason
        self.detail = detail
        self.message = message
    }

    public var fields: [(String, JSON)] {
        [
            ("source", .string(source)), ("medium", .string(medium.rawValue)), ("reason", .string(reason.rawValue)),
            ("detail", .string(detail)), ("message", .string(message)),
        ]
    }
}
