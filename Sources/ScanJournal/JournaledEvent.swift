import JSONCore

/// One durable event: its number, its type and its whole encoded object (no newline).
public struct JournaledEvent: Sendable, Hashable {
    public let seq: UInt64
    public let type: String
    public let line: String

    public init(seq: UInt64, type: String, line: String) {
        self.seq = seq
        self.type = type
        self.line = line
    }

    /// Reads back a journal line; nil when it is not an event object with a `seq` and a `type`.
    init?(line: String) {
        guard let parsed = try? JSON.parse(line),
            let type = parsed["type"]?.stringValue,
            let seq = parsed["seq"]?.integerValue, seq > 0
        else { return nil }
        self.init(seq: UInt64(seq), type: type, line: line)
    }
}
