import JSONCore

/// A reader or camera appeared, became ready, failed or went away.
public struct SourceEvent: Sendable, Hashable {
    /// `nfc:<reader>`, `camera:<device>`, `y4m:<path>`...; `nfc` or `camera` while no device stands for the medium.
    public var id: String
    public var medium: Medium
    public var state: SourceState
    public var detail: String
    /// The lane the source belongs to (daemon.md, `lane`); nil: the station as a whole.
    public var lane: String?

    public init(id: String, medium: Medium, state: SourceState, detail: String, lane: String? = nil) {
        self.id = id
        self.medium = medium
        self.state = state
        self.detail = detail
        self.lane = lane
    }

    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [("id", .string(id)), ("medium", .string(medium.rawValue))]
        if let lane { fields.append(("lane", .string(lane))) }
        return fields + [("state", .string(state.rawValue)), ("detail", .string(detail))]
    }
}
