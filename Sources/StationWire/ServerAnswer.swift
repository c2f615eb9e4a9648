import JSONCore

/// The server's messages that are not journaled events: `hello`, and the answers to a client's commands.
public enum ServerAnswer {
    public static let protocolVersion: Int64 = 1

    /// Sent at once on connect; `fields` are the station's `version`, `station`, `sources`, `last_seq`.
    public static func hello(_ fields: [(String, JSON)]) -> JSON {
        .object([("type", .string(MessageType.hello.name)), ("protocol", .int(protocolVersion))] + fields)
    }

    public static func ack(id: JSON) -> JSON {
        .object([("type", .string(MessageType.ack.name)), ("id", id)])
    }

    /// The end of a replay: `replayed` events came from the journal, what follows is live.
    public static func ack(id: JSON, replayed: Int) -> JSON {
        .object([("type", .string(MessageType.ack.name)), ("id", id), ("replayed", .int(Int64(replayed)))])
    }

    public static func error(_ code: ErrorCode, _ detail: String, id: JSON) -> JSON {
        .object([("type", .string(MessageType.error.name)), ("id", id), ("code", .string(code.rawValue)), ("detail", .string(detail))])
    }

    public static func status(id: JSON, _ fields: [(String, JSON)]) -> JSON {
        .object([("type", .string(MessageType.status.name)), ("id", id)] + fields)
    }

    /// What a product is; `fields` follow socket-protocol.md's "What a product is".
    public static func passport(id: JSON, _ fields: [(String, JSON)]) -> JSON {
        .object([("type", .string(MessageType.passport.name)), ("id", id)] + fields)
    }
}
