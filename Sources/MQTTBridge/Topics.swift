import StationWire

/// The topics of outputs.md: `<prefix>/<station>/event/<type>` and `<prefix>/<station>/status`, and the gap repair's
/// `<prefix>/<station>/replay` and `<prefix>/<station>/replay/answer`.
struct Topics: Equatable, Sendable {
    let prefix: String
    let station: String

    /// The topics of the station the daemon's `hello` names.
    init(prefix: String, station: String) {
        self.init(prefix: prefix, level: Topics.level(station))
    }

    /// The topics of a station by its topic level, as a consumer sees it on the broker.
    init(prefix: String, level: String) {
        self.prefix = prefix
        station = level
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

    /// A name from the daemon as one topic level (and the client id's end), one to one: `%`, `/`, `+`, `#` and control
    /// characters as `%XX`, so that `x+y` and `x_y` stay two stations (with `_` for all, their bridges threw each other
    /// off the broker and the watch took one's events as the other's repeats); an empty name is `%`.
    static func level(_ name: String) -> String {
        guard !name.isEmpty else { return "%" }
        var level = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar == "%" || scalar == "/" || scalar == "+" || scalar == "#" || scalar.value < 0x20 || scalar.value == 0x7F {
                level += escaped(scalar)
            } else {
                level.append(scalar)
            }
        }
        return String(level)
    }

    /// A topic level as a file name (the watch's `--output`): as it is, but for control characters, which only a
    /// publisher other than the bridge can put there, as `%XX`; a level never holds `/`.
    static func fileName(level: String) -> String {
        var name = String.UnicodeScalarView()
        for scalar in level.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { name += escaped(scalar) } else { name.append(scalar) }
        }
        return String(name)
    }

    /// An ASCII scalar as `%XX`.
    private static func escaped(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return String.UnicodeScalarView(["%", digits[Int(scalar.value >> 4)], digits[Int(scalar.value & 0xF)]])
    }
}
