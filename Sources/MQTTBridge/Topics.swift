import StationWire

/// The topics of outputs.md: `<prefix>/<station>/event/<type>` and `<prefix>/<station>/status`, and the gap repair's
/// `<prefix>/<station>/replay` and `<prefix>/<station>/replay/answer`.
struct Topics: Sendable {
    let prefix: String
    let station: String

    init(prefix: String, station: String) {
        self.prefix = prefix
        self.station = Topics.level(station)
    }

    var status: String { "\(prefix)/\(station)/status" }

    /// Where consumers ask for events again (docs/mqtt.md, "Gap repair").
    var replay: String { "\(prefix)/\(station)/replay" }
    var replayAnswer: String { "\(prefix)/\(station)/replay/answer" }

    func event(_ type: MessageType) -> String { "\(prefix)/\(station)/event/\(Topics.level(type.name))" }

    /// Everything `watch` follows: every station's events, replay answers and status.
    static func watched(prefix: String) -> [String] {
        ["\(prefix)/+/event/+", "\(prefix)/+/replay/answer", "\(prefix)/+/status"]
    }

    /// A name from the daemon as one topic level: `/`, `+`, `#` and control characters become `_`.
    static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}
