/// One line from the daemon: kept byte for byte (`line`), parsed (`json`), with the fields a client routes on.
public struct StationMessage: Sendable {
    /// Exactly as the daemon sent it, without the newline: what a bridge passes on.
    public let line: String
    public let json: StationJSON
    /// `hello`, `source`, `scan`, `read_error`, `verdict`, `ack`, `status`, `error`, or a type added later.
    public let type: String
    /// Present on journaled events only.
    public let seq: UInt64?
    /// The command's `id` that this answers, as text (numbers in decimal).
    public let id: String?
    /// On the `ack` that ends a replay: how many events it sent.
    public let replayed: Int?
    /// On `error`: its `code` and `detail`.
    public let code: String?
    public let detail: String?
}

/// The daemon's greeting, the first line of every connection.
public struct StationHello: Sendable {
    public let protocolVersion: Int
    public let station: String
    public let version: String
    /// The newest journaled seq when the connection was made (0 for an empty journal).
    public let lastSeq: UInt64
    public let message: StationMessage
}

/// A command of socket-protocol.md; `id` is echoed in its answer.
public struct StationCommand: Sendable {
    public enum Action: Sendable {
        case watch([String])
        /// `raw` is sent exactly as given.
        case verify(raw: String)
        case status
        case replay(since: UInt64)
    }

    public let action: Action
    public let id: String?

    public init(_ action: Action, id: String? = nil) {
        self.action = action
        self.id = id
    }
}
