import JSONCore

/// A client's line of protocol 1, as a typed command: read by the server, written by clients.
public struct ClientCommand: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Only these event types from now on; `[]` silences the stream.
        case watch(Set<EventType>)
        /// The string exactly as given, treated as a scan of the medium `manual`.
        case verify(raw: String)
        case status
        /// The journaled events after `since`, then live.
        case replay(since: UInt64)
        /// What a product is: answered to this client only, never journaled.
        case passport(PassportQuery)
    }

    /// What the answer echoes: the command's `id` (a string or a number), or null when it had none.
    public var id: JSON
    public var action: Action

    public init(id: JSON = .null, action: Action) {
        self.id = id
        self.action = action
    }

    /// The command's line, without its newline.
    public var json: JSON {
        var members: [(String, JSON)]
        switch action {
        case .watch(let types):
            let names = EventType.allCases.filter(types.contains).map { JSON.string($0.rawValue) }
            members = [("cmd", "watch"), ("events", .array(names))]
        case .verify(let raw): members = [("cmd", "verify"), ("raw", .string(raw))]
        case .status: members = [("cmd", "status")]
        case .replay(let since): members = [("cmd", "replay"), ("since", .int(Int64(clamping: since)))]
        case .passport(let query): members = [("cmd", "passport")] + query.members
        }
        if id != .null { members.insert(("id", id), at: 1) }
        return .object(members)
    }

    /// Why a line is not a command the server can carry out: answered with an `error`, the connection stays.
    public struct Refusal: Error, Sendable, Hashable {
        public let id: JSON
        public let code: ErrorCode
        public let detail: String
    }

    public static func read(_ line: some Collection<UInt8>) throws(Refusal) -> ClientCommand {
        let message: JSON
        do {
            message = try JSON.parse(utf8: line)
        } catch {
            throw Refusal(id: .null, code: .badJSON, detail: error.description)
        }
        guard case .object = message else {
            throw Refusal(id: .null, code: .badJSON, detail: "a command is a JSON object")
        }
        let id = message["id"] ?? .null
        switch id {
        case .null, .string, .int: break
        // 1e400 reads as infinity, which JSON cannot print: echoed, it would come back as null.
        case .double(let number) where number.isFinite: break
        case .double: throw Refusal(id: .null, code: .badArgs, detail: "id is a number too large to echo; use a string")
        default: throw Refusal(id: .null, code: .badArgs, detail: "id must be a string or a number")
        }
        guard let name = message["cmd"]?.stringValue else {
            throw Refusal(id: id, code: .unknownCommand, detail: "no \"cmd\" string")
        }
        switch name {
        case "watch":
            guard let items = message["events"]?.arrayValue else {
                throw Refusal(id: id, code: .badArgs, detail: "watch needs \"events\": a list of event types")
            }
            var types: Set<EventType> = []
            for item in items {
                guard let type = item.stringValue.flatMap(EventType.init(rawValue:)) else {
                    throw Refusal(
                        id: id, code: .badArgs,
                        detail: "watch events are drawn from source, scan, read_error and verdict; got \(item.encoded())")
                }
                types.insert(type)
            }
            return ClientCommand(id: id, action: .watch(types))
        case "verify":
            guard let raw = message["raw"]?.stringValue else {
                throw Refusal(id: id, code: .badArgs, detail: "verify needs \"raw\": the scanned string")
            }
            return ClientCommand(id: id, action: .verify(raw: raw))
        case "status":
            return ClientCommand(id: id, action: .status)
        case "replay":
            guard let since = message["since"].flatMap(wholeNumber) else {
                throw Refusal(id: id, code: .badArgs, detail: "replay needs \"since\": a whole number of 0 or more")
            }
            return ClientCommand(id: id, action: .replay(since: since))
        case "passport":
            return ClientCommand(id: id, action: .passport(try PassportQuery.read(message, id: id)))
        default:
            throw Refusal(id: id, code: .unknownCommand, detail: "unknown command \(JSON.string(name).encoded())")
        }
    }

    /// A `since` beyond Int64 means the same as Int64.max (above every seq), and prints as it: the
    /// command then reads back the same from its own line.
    private static func wholeNumber(_ value: JSON) -> UInt64? {
        switch value {
        case .int(let number) where number >= 0: return UInt64(number)
        case .double(let number) where number >= 0 && number.rounded() == number:
            return number < 9.2e18 ? UInt64(number) : UInt64(Int64.max)
        default: return nil
        }
    }
}
