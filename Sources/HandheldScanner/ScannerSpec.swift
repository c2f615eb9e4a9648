/// A handheld scanner as `--scanner` names it: `evdev:PATH` or `serial:PATH[@BAUD]`.
public enum ScannerSpec: Sendable, Hashable {
    case evdev(path: String)
    case serial(path: String, baud: Int)

    public static let defaultBaud = 9600
    /// The rates termios can set (`B1200` to `B921600`).
    public static let baudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws(ParseError) {
        if text.hasPrefix("evdev:") {
            let path = String(text.dropFirst("evdev:".count))
            try Self.check(path: path, in: text)
            self = .evdev(path: path)
        } else if text.hasPrefix("serial:") {
            var path = String(text.dropFirst("serial:".count))
            var baud = Self.defaultBaud
            if let at = path.lastIndex(of: "@") {
                let rate = path[path.index(after: at)...]
                guard let value = Int(rate), Self.baudRates.contains(value) else {
                    throw ParseError(description: "\"\(text)\": the baud rate must be one of \(Self.baudRates.map(String.init).joined(separator: ", "))")
                }
                baud = value
                path = String(path[..<at])
            }
            try Self.check(path: path, in: text)
            self = .serial(path: path, baud: baud)
        } else {
            throw ParseError(description: "\"\(text)\": a scanner is evdev:PATH or serial:PATH[@BAUD]")
        }
    }

    private static func check(path: String, in text: String) throws(ParseError) {
        guard path.hasPrefix("/") else { throw ParseError(description: "\"\(text)\": the path must be absolute") }
        guard !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw ParseError(description: "the scanner path must not contain control characters")
        }
    }

    public var path: String {
        switch self {
        case .evdev(let path), .serial(let path, _): path
        }
    }

    /// The source id events carry: `evdev:<PATH>` or `serial:<PATH>` (the baud rate is not part of it).
    public var id: String {
        switch self {
        case .evdev(let path): "evdev:\(path)"
        case .serial(let path, _): "serial:\(path)"
        }
    }
}
