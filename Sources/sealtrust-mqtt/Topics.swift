/// The topics of outputs.md: `<prefix>/<station>/event/<type>` and `<prefix>/<station>/status`.
struct Topics: Sendable {
    let prefix: String
    let station: String

    init(prefix: String, station: String) {
        self.prefix = prefix
        self.station = Topics.level(station)
    }

    var status: String { "\(prefix)/\(station)/status" }

    func event(_ type: String) -> String { "\(prefix)/\(station)/event/\(Topics.level(type))" }

    /// Everything `watch` follows.
    static func allEvents(prefix: String) -> String { "\(prefix)/+/event/+" }

    /// A name from the daemon as one topic level: `/`, `+`, `#` and control characters become `_`.
    static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}
