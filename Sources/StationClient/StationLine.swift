import JSONCore
import StationWire

/// One line from the daemon: kept byte for byte (`line`), parsed (`json`), with the fields a client routes on.
public struct StationLine: Sendable {
    /// Exactly as the daemon sent it, without the newline: what a bridge passes on.
    public let line: String
    public let json: JSON
    /// What the line is; a type added to the protocol later is `unknown`, with its name, for a bridge to pass on.
    public let type: MessageType
    /// Present on journaled events only.
    public let seq: UInt64?
    /// The command's `id` that this answers, as text (numbers in decimal).
    public let id: String?
    /// On the `ack` that ends a replay: how many events it sent.
    public let replayed: Int?
    /// On `error`: its `code` and `detail`.
    public let code: String?
    public let detail: String?

    /// nil when the line is not a JSON object with a string `type`.
    init?(line: String) {
        guard let json = try? JSON.parse(line), let type = MessageType(of: json) else { return nil }
        self.line = line
        self.json = json
        self.type = type
        seq = json["seq"]?.integerValue.flatMap { $0 >= 1 ? UInt64($0) : nil }
        id = json["id"]?.stringValue ?? json["id"]?.integerValue.map { String($0) }
        replayed = json["replayed"]?.integerValue.flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        code = json["code"]?.stringValue
        detail = json["detail"]?.stringValue
    }
}
