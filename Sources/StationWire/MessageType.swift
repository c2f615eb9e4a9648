import JSONCore

/// The `type` of a line the server writes: a journaled event's, or an answer's. Clients route on it rather than on its
/// name; a type this build does not know (added to protocol 1 later) is `unknown`, kept by name so that a bridge
/// passes it on as it came.
public enum MessageType: Sendable, Hashable {
    case hello
    case event(EventType)
    case ack
    case status
    case error
    /// The answer to `passport`.
    case passport
    case unknown(String)

    public init(name: String) {
        switch name {
        case "hello": self = .hello
        case "ack": self = .ack
        case "status": self = .status
        case "error": self = .error
        case "passport": self = .passport
        default: self = EventType(rawValue: name).map(MessageType.event) ?? .unknown(name)
        }
    }

    /// The `type` of a server line; nil when it has no string `type`.
    public init?(of message: JSON) {
        guard let name = message["type"]?.stringValue else { return nil }
        self.init(name: name)
    }

    /// The `type` as written on the wire.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .event(let type): type.rawValue
        case .ack: "ack"
        case .status: "status"
        case .error: "error"
        case .passport: "passport"
        case .unknown(let name): name
        }
    }
}
