import FoundationEssentials
import JSONCore

/// One event of an item's history (ownership movement, authentication scan, ...).
public struct HistoryEvent: Sendable, Hashable {
    /// An open string: `ownership_transfer`, `authentication_scan`, or anything else.
    public let kind: String
    public let at: Date
    /// Every field of the event, as raw JSON (`at` as the server wrote it).
    public let fields: [String: JSON]

    public init(kind: String, at: Date, fields: [String: JSON]) {
        self.kind = kind
        self.at = at
        self.fields = fields
    }
}
