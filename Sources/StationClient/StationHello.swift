/// The daemon's greeting, the first line of every connection.
public struct StationHello: Sendable {
    public let protocolVersion: Int
    public let station: String
    public let version: String
    /// The newest journaled seq when the connection was made (0 for an empty journal).
    public let lastSeq: UInt64
    public let message: StationLine

    /// nil when the message is not a `hello` with a `protocol` and a `last_seq` of 0 or more.
    init?(_ message: StationLine) {
        let json = message.json
        guard message.type == .hello, let version = json["protocol"]?.integerValue,
              let lastSeq = json["last_seq"]?.integerValue, lastSeq >= 0
        else { return nil }
        protocolVersion = Int(clamping: version)
        station = json["station"]?.stringValue ?? ""
        self.version = json["version"]?.stringValue ?? ""
        self.lastSeq = UInt64(lastSeq)
        self.message = message
    }
}
