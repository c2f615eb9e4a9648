import Logging
import POSIXSupport
import Sentences
import StationWire
/// `sealtrust-kiosk`'s command line (outputs.md).
public struct KioskOptions: Sendable, Equatable {
    public static let usage = """
        usage: sealtrust-kiosk [--socket PATH] [--listen ADDR:PORT] [--allow-host NAME]... [--lang en|fr] [--hold SECONDS]
                               [--texts FILE] [--theme FILE] [--lane NAME] [--version] [--help]
          --socket PATH       the daemon's socket (default /run/sealtrust-scand/scand.sock)
          --listen ADDR:PORT  where the page is served (default 127.0.0.1:8080; [::1]:8080 for IPv6; localhost:8080)
          --allow-host NAME   a name browsers may use for the page, besides the listen address and localhost
          --lang en|fr        the page's own words (default: the daemon's language, en until it answers)
          --hold SECONDS      how long a verdict stays on the page, 1 to 3600 (default 8)
          --texts FILE        sentences replaced by id: the daemon's texts file (sealtrust-texts(5))
          --theme FILE        colours replaced by name: a JSON object such as {"good": "#0b6e35"}; the names are
                              good, alert, neutral, unavailable, idle, offline, text, accent
          --lane NAME         show only that lane's events (the daemon's --lane); without it, the page at /?lane=NAME
                              does the same, so one bridge serves every lane's screen
        """

    public enum Parsed: Sendable, Equatable {
        case run(KioskOptions)
        case version
        case help
    }

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
        /// Whether the usage helps: not after a file that could not be used, which its line says all about.
        public var showsUsage = true
    }

    public var socketPath = "/run/sealtrust-scand/scand.sock"
    public var listen = ListenAddress.loopback
    /// `--allow-host`, in the order given.
    public var allowedHostNames: [String] = []
    /// nil: the daemon's `lang`.
    public var language: KioskLanguage?
    public var holdSeconds = 8
    public var theme = KioskTheme.standard
    public var sentences = SentenceOverrides()
    /// `--lane`: every page shows this lane's events only.
    public var lane: String?

    public static func parse(_ arguments: [String]) throws(Invalid) -> Parsed {
        var options = KioskOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--version": return .version
            case "--help", "-h": return .help
            case "--socket", "--listen", "--allow-host", "--lang", "--hold", "--theme", "--texts", "--lane":
                guard let value = remaining.popFirst() else { throw Invalid(description: "\(argument) needs a value") }
                try options.set(argument, to: value)
            default:
                throw Invalid(description: "unknown argument \(printable(argument))")
            }
        }
        return .run(options)
    }

    /// The `Host` names a request may give.
    public var allowedHosts: AllowedHosts { AllowedHosts(listen: listen, extra: allowedHostNames) }

    private mutating func set(_ option: String, to value: String) throws(Invalid) {
        switch option {
        case "--socket":
            guard !value.isEmpty, value.utf8.count < 108 else { throw Invalid(description: "--socket: a path of 1 to 107 bytes") }
            socketPath = value
        case "--listen":
            guard let address = ListenAddress(value) else {
                throw Invalid(description: "--listen \(printable(value)): expected ADDR:PORT with a numeric address or localhost, such as 127.0.0.1:8080")
            }
            listen = address
        case "--allow-host":
            guard AllowedHosts.isName(value) else {
                throw Invalid(description: "--allow-host \(printable(value)): a host name (letters, digits, dots, hyphens) or a numeric address")
            }
            allowedHostNames.append(value)
        case "--lang":
            guard let language = KioskLanguage(rawValue: value) else { throw Invalid(description: "--lang: en or fr") }
            self.language = language
        case "--lane":
            guard LaneName.isValid(value) else { throw Invalid(description: "--lane \(printable(value)): a lane's name is \(LaneName.rule)") }
            lane = value
        case "--theme":
            do throws(Invalid) { theme = try KioskTheme.read(value) } catch { throw Invalid(description: error.description, showsUsage: false) }
        case "--texts":
            do throws(Invalid) { sentences = try Self.readTexts(value) } catch { throw Invalid(description: error.description, showsUsage: false) }
        default:
            guard let seconds = Int(value), (1...3600).contains(seconds) else { throw Invalid(description: "--hold: 1 to 3600 seconds") }
            holdSeconds = seconds
        }
    }
}

extension KioskOptions {
    /// The `texts` file the daemon takes too; an unknown id is refused with its name.
    static func readTexts(_ path: String) throws(Invalid) -> SentenceOverrides {
        let bytes: [UInt8]
        do throws(Errno) {
            let file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(path))
            bytes = try FileDescriptor.read(file.rawValue, upTo: SentenceOverrides.largestFile + 1)
        } catch {
            throw Invalid(description: "--texts \(printable(path)): cannot read it: \(error)")
        }
        do throws(SentenceOverrides.Refusal) {
            return try SentenceOverrides.read(bytes, guardingAgainst: KioskWords.defaultsByLanguage)
        } catch {
            throw Invalid(description: "--texts \(printable(path)): \(error.description)")
        }
    }
}

/// Text from outside, fit for a terminal or a log line: control characters escaped, cut to 200 characters.
public func printable(_ text: String) -> String {
    TerminalText.escaped(text, keepingAtMost: 200)
}
