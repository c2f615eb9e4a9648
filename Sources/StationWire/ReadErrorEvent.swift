import JSONCore

/// A tag or code was seen but could not be read; no API call is made.
public struct ReadErrorEvent: Sendable, Hashable {
    public var source: String
    public var medium: Medium
    /// The lane of the source (daemon.md, `lane`); nil: the station as a whole.
    public var lane: String?
    public var reason: ReadErrorReason
    public var detail: String
    /// What the screen should say.
    public var message: String

    public init(source: String, medium: Medium, reason: ReadErrorReason, detail: String, message: String, lane: String? = nil) {
        self.source = source
        self.medium = medium
        self.reason = reason
        self.detail = detail
        self.message = message
        self.lane = lane
    }

    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [("source", .string(source)), ("medium", .string(medium.rawValue))]
        if let lane { fields.append(("lane", .string(lane))) }
        return fields + [("reason", .string(reason.rawValue)), ("detail", .string(detail)), ("message", .string(message))]
    }
}
