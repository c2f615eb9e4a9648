import ScanJournal

/// A client's line, read as one command of protocol 1.
struct ClientCommand {
    static let eventTypes: Set<String> = ["source", "scan", "read_error", "verdict"]

    enum Action {
        case watch(Set<String>)
        case verify(raw: String, requestID: JSON?)
        case status
        case replay(since: UInt64)
    }

    /// What the answer echoes: the command's `id`, or null when it had none.
    let id: JSON
    let action: Action

    struct Refusal: Error {
        let id: JSON
        let code: String
        let detail: String
    }

    static func read(_ line: ArraySlice<UInt8>) throws(Refusal) -> ClientCommand {
        let message: JSON
        do {
            message = try JSON.parse(utf8: line)
        } catch {
            throw Refusal(id: .null, code: "bad_json", detail: error.description)
        }
        guard case .object = message else {
            throw Refusal(id: .null, code: "bad_json", detail: "a command is a JSON object")
        }
        let id = message["id"] ?? .null
        switch id {
        case .null, .string, .int, .double: break
        default: throw Refusal(id: .null, code: "bad_args", detail: "id must be a string or a number")
        }
        guard let name = message["cmd"]?.stringValue else {
            throw Refusal(id: id, code: "unknown_cmd", detail: "no \"cmd\" string")
        }
        switch name {
        case "watch":
            guard let items = message["events"]?.arrayValue else {
                throw Refusal(id: id, code: "bad_args", detail: "watch needs \"events\": a list of event types")
            }
            var types: Set<String> = []
            for item in items {
                guard let type = item.stringValue, eventTypes.contains(type) else {
                    throw Refusal(
                        id: id, code: "bad_args",
                        detail: "watch events are drawn from source, scan, read_error and verdict; got \(item.encoded())")
                }
                types.insert(type)
            }
            return ClientCommand(id: id, action: .watch(types))
        case "verify":
            guard let raw = message["raw"]?.stringValue else {
                throw Refusal(id: id, code: "bad_args", detail: "verify needs \"raw\": the scanned string")
            }
            return ClientCommand(id: id, action: .verify(raw: raw, requestID: message["id"]))
        case "status":
            return ClientCommand(id: id, action: .status)
        case "replay":
            guard let since = message["since"].flatMap(wholeNumber) else {
                throw Refusal(id: id, code: "bad_args", detail: "replay needs \"since\": a whole number of 0 or more")
            }
            return ClientCommand(id: id, action: .replay(since: since))
        default:
            throw Refusal(id: id, code: "unknown_cmd", detail: "unknown command \(JSON.string(name).encoded())")
        }
    }

    private static func wholeNumber(_ value: JSON) -> UInt64? {
        switch value {
        case .int(let number) where number >= 0: return UInt64(number)
        case .double(let number) where number >= 0 && number.rounded() == number:
            return number < 1.8e19 ? UInt64(number) : UInt64.max
        default: return nil
        }
    }
}
