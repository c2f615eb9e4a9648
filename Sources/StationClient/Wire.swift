import JSONCore

// The one file that knows today's JSON type: moving to another wire module changes only this file.

/// A parsed protocol line, as the daemon's own JSON type.
public typealias StationJSON = JSON

extension StationMessage {
    /// nil when the line is not a JSON object with a string `type`.
    init?(line: String) {
        guard let json = try? JSON.parse(line), let type = json["type"]?.stringValue else { return nil }
        let seq = json["seq"]?.integerValue.flatMap { $0 >= 1 ? UInt64($0) : nil }
        let id = json["id"]?.stringValue ?? json["id"]?.integerValue.map { String($0) }
        self.init(line: line, json: json, type: type, seq: seq, id: id,
                  replayed: json["replayed"]?.integerValue.flatMap { $0 >= 0 ? Int(exactly: $0) : nil },
                  code: json["code"]?.stringValue, detail: json["detail"]?.stringValue)
    }
}

extension StationHello {
    init?(_ message: StationMessage) {
        let json = message.json
        guard message.type == "hello", let version = json["protocol"]?.integerValue,
              let lastSeq = json["last_seq"]?.integerValue, lastSeq >= 0
        else { return nil }
        self.init(protocolVersion: Int(clamping: version), station: json["station"]?.stringValue ?? "",
                  version: json["version"]?.stringValue ?? "", lastSeq: UInt64(lastSeq), message: message)
    }
}

extension StationCommand {
    /// The command as one protocol line, without its newline.
    var line: String {
        var members: [(String, JSON)]
        switch action {
        case .watch(let types): members = [("cmd", "watch"), ("events", .array(types.map { .string($0) }))]
        case .verify(let raw): members = [("cmd", "verify"), ("raw", .string(raw))]
        case .status: members = [("cmd", "status")]
        case .replay(let since): members = [("cmd", "replay"), ("since", .int(Int64(clamping: since)))]
        }
        if let id { members.insert(("id", .string(id)), at: 1) }
        return JSON.object(members).encoded()
    }
}

/// The oldest seq a `not_available` answer names ("... (the oldest kept is N)"), when it names one.
func oldestKeptSeq(inDetail detail: String) -> UInt64? {
    guard let range = detail.firstRange(of: "oldest kept is ") else { return nil }
    return UInt64(detail[range.upperBound...].prefix { $0.isNumber })
}
