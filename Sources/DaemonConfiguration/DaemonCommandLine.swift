import FoundationEssentials
import Glibc
import POSIXSupport
import SealTrustKit
import Sentences
import StationWire

/// Reads daemon.md's command line and `key = value` configuration file into `DaemonOptions`.
public enum DaemonCommandLine {
    public enum Request: Sendable, Equatable {
        case run(DaemonOptions)
        /// `--check-config`: check, say so, and exit (ExecReload runs it before SIGHUP).
        case checkConfig(DaemonOptions)
        case version
        case help
    }

    public static let defaultConfigPath = "/etc/sealtrust-scand/scand.conf"

    public static let usage = """
        usage: sealtrust-scand [--config PATH] [--socket PATH] [--api-base URL] [--public-api-base URL]
                               [--api-timeout SECONDS]
                               [--api-proxy URL|none] [--api-ca FILE] [--api-keepalive SECONDS]
                               [--api-rate-window SECONDS]
                               [--nfc auto|none|NAME] [--camera auto|none|DEVICE|y4m:PATH]...
                               [--feedback auto|none]
                               [--journal PATH] [--station ID] [--host NAME]... [--lang en|fr] [--texts PATH]
                               [--latitude DEG --longitude DEG] [--tier TIER] [--token-file PATH]
                               [--rescan-after SECONDS] [--scanner evdev:PATH|serial:PATH[@BAUD]]...
                               [--scanner-keymap us|de|fr] [--max-clients N] [--client-queue BYTES]
                               [--journal-max-bytes N] [--journal-max-age DAYS]
                               [--on-api-outage fail|defer] [--defer-max-age HOURS]
                               [--log-level error|warning|info|debug] [--lane NAME=SOURCE[,SOURCE...]]...
                               [--check-config] [--version] [--help]

        Reads NFC tags, QR codes and handheld scanners, asks the SealTrust API for a verdict, and publishes
        scans and verdicts on a Unix socket. The configuration file holds `key = value`
        lines whose keys are these flags' names; a flag replaces the file's values.
        """

    /// One setting as found on the command line or in the file, with where it came from.
    struct Setting {
        let key: String
        let value: String
        let location: String
    }

    public static func parse(
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) throws(ConfigurationError) -> Request {
        var flags: [Setting] = []
        var configPath: String?
        var checkOnly = false
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--version" { return .version }
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--check-config" {
                checkOnly = true
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(message: "unexpected argument '\(argument)' (see --help)")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard name == "config" || ConfigurationKey(rawValue: name) != nil else {
                throw ConfigurationError(message: "unknown option --\(name) (see --help)")
            }
            if value == nil {
                guard index < arguments.endIndex else {
                    throw ConfigurationError(message: "option --\(name) needs a value")
                }
                value = arguments[index]
                index += 1
            }
            if name == "config" {
                configPath = value
            } else {
                flags.append(Setting(key: name, value: value ?? "", location: "--\(name)"))
            }
        }

        var fileSettings: [Setting] = []
        if let configPath {
            fileSettings = try readFile(configPath)
        } else if fileExists(defaultConfigPath) {
            fileSettings = try readFile(defaultConfigPath)
        }
        let keysOnCommandLine = Set(flags.map(\.key))
        let settings = fileSettings.filter { !keysOnCommandLine.contains($0.key) } + flags

        var options = DaemonOptions()
        if let proxy = environment["HTTPS_PROXY"] ?? environment["https_proxy"], !proxy.isEmpty {
            do {
                options.apiProxy = try ConfigurationKey.proxyURL(proxy)
            } catch {
                throw ConfigurationError(message: "HTTPS_PROXY: bad value '\(proxy)': \(error.reason)")
            }
        }
        options.configPath = configPath ?? (fileExists(defaultConfigPath) ? defaultConfigPath : nil)
        var seen: [String: String] = [:]
        // The first `camera` replaces the default (auto); `none` is no camera, and goes with no other.
        let cameraSettings = settings.filter { $0.key == ConfigurationKey.camera.rawValue }
        if !cameraSettings.isEmpty { options.cameras = [] }
        if cameraSettings.count > 1, let none = cameraSettings.first(where: { $0.value == "none" }) {
            throw ConfigurationError(message: "\(none.location): camera none goes with no other camera")
        }
        /// Where each lane was defined.
        var laneLocations: [String: String] = [:]
        for setting in settings {
            guard let key = ConfigurationKey(rawValue: setting.key) else {
                throw ConfigurationError(message: "\(setting.location): unknown key '\(setting.key)'")
            }
            if !key.isRepeatable, let first = seen[setting.key] {
                throw ConfigurationError(message: "\(setting.location): '\(setting.key)' is already set (at \(first)) and takes one value")
            }
            seen[setting.key] = setting.location
            do {
                try key.apply(setting.value, to: &options)
            } catch {
                throw ConfigurationError(message: "\(setting.location): bad value '\(setting.value)' for '\(setting.key)': \(error.reason)")
            }
            if key == .lane, let lane = options.lanes.last { laneLocations[lane.name] = setting.location }
        }
        // A source the configuration can never see would leave its lane's screen silent: said now, with its line.
        for lane in options.lanes {
            for source in lane.sources {
                if let problem = Lane.unconfiguredProblem(source, in: options) {
                    throw ConfigurationError(message: "\(laneLocations[lane.name] ?? "--lane"): lane \(lane.name): \(problem)")
                }
            }
        }
        // The environment's proxy is not for the hosts NO_PROXY names; a proxy set with --api-proxy is used as given.
        if seen[ConfigurationKey.apiProxy.rawValue] == nil, let host = options.apiBase.host,
           NoProxyList.fromEnvironment(environment)?.excludes(host: host) == true {
            options.apiProxy = nil
        }
        if let path = options.textsFile {
            options.sentences = try Self.readTexts(path, at: seen[ConfigurationKey.texts.rawValue] ?? "--texts")
        }
        if (options.latitude == nil) != (options.longitude == nil) {
            let given = options.latitude == nil ? "longitude" : "latitude"
            throw ConfigurationError(message: "\(seen[given] ?? given): latitude and longitude go together; set both or neither")
        }
        if checkOnly {
            try checkNamedFiles(of: options, environment: environment)
            return .checkConfig(options)
        }
        return .run(options)
    }

    /// What `--check-config` adds to parsing: what would stop the start (the socket and journal paths), and the files
    /// the configuration names, which can be used now as the daemon reads them.
    static func checkNamedFiles(of options: DaemonOptions, environment: [String: String]) throws(ConfigurationError) {
        if let problem = StartPathCheck.socketProblem(options.socketPath) ?? StartPathCheck.journalProblem(options.journalPath) {
            throw ConfigurationError(message: problem)
        }
        if let tokenFile = TokenFile.path(for: options, environment: environment),
           case .problem(let problem, _) = TokenFile.read(tokenFile) {
            throw ConfigurationError(message: problem)
        }
        if let bundle = options.apiCAFile, let problem = CABundleFile.read(bundle).problem {
            throw ConfigurationError(message: problem)
        }
    }

    /// The `texts` file (sealtrust-texts(5)); `location` says where it was named.
    static func readTexts(_ path: String, at location: String) throws(ConfigurationError) -> SentenceOverrides {
        switch NamedFile.read(path, what: "texts file", limit: SentenceOverrides.largestFile) {
        case .bytes(let bytes, _):
            do throws(SentenceOverrides.Refusal) {
                return try SentenceOverrides.read(bytes, guardingAgainst: ScreenTexts.defaultsByLanguage)
            } catch {
                throw ConfigurationError(message: "\(location): texts file \(path): \(error.description)")
            }
        case .problem(let problem, _):
            throw ConfigurationError(message: "\(location): \(problem)")
        case .unchanged: preconditionFailure("read with no identity to compare")
        }
    }

    /// The most a configuration file may hold: a few hundred lines are plenty, and /dev/zero must not be read for ever.
    static let maximumFileBytes = 1 << 20

    /// `key = value` lines; `#` starts a comment line; blank lines are skipped.
    static func readFile(_ path: String) throws(ConfigurationError) -> [Setting] {
        var read: [UInt8]?
        // Not blocking: a FIFO named by mistake reads as what is in it now, and never holds up the start or a reload.
        if let descriptor = try? FileDescriptor.openForReadingWithoutWaiting(path) {
            let file = OwnedDescriptor(descriptor)
            read = try? FileDescriptor.read(file.rawValue, upTo: maximumFileBytes + 1)
        }
        guard let read else {
            throw ConfigurationError(message: "\(path): cannot read the configuration file: \(readFailureReason(path))")
        }
        guard read.count <= maximumFileBytes else {
            throw ConfigurationError(message: "\(path): the configuration file is larger than \(maximumFileBytes >> 20) MiB")
        }
        guard let text = String(validating: read, as: UTF8.self) else {
            throw ConfigurationError(message: "\(path): the configuration file is not UTF-8 text")
        }
        var settings: [Setting] = []
        // CR LF is one Character in Swift: split on it too, or a file saved on Windows is one long line.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (offset, rawLine) in lines.enumerated() {
            let location = "\(path):\(offset + 1)"
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(message: "\(location): expected 'key = value', found '\(line)'")
            }
            var key = line[..<equals].trimmingWhitespace()
            var value = line[line.index(after: equals)...].trimmingWhitespace()
            // `lane dock1 = nfc:..., y4m:...`: the lane's name stands between the key and `=`; its sources are quoted
            // one by one, if at all (ConfigurationKey.anchoring).
            if key.hasPrefix("lane"), key.dropFirst(4).first?.isWhitespace == true {
                value = key.dropFirst(4).trimmingWhitespace() + "=" + value
                key = ConfigurationKey.lane.rawValue
            }
            guard let known = ConfigurationKey(rawValue: key) else {
                throw ConfigurationError(message: "\(location): unknown key '\(key)'")
            }
            // `station = "dock 3"`: the quotes are how people write a value with a space, never part of it (they
            // would go into every event and MQTT topic). One quote alone is a mistake the line says.
            if known != .lane, let first = value.first, let last = value.last,
               first == "\"" || first == "'" || last == "\"" || last == "'" {
                guard value.count >= 2, first == last else {
                    throw ConfigurationError(message: "\(location): a quote at one end of the value only: write \(value) with the same quote at both ends, or none")
                }
                value = String(value.dropFirst().dropLast())
            }
            settings.append(Setting(key: key, value: known.anchoring(value, in: folder(of: path)), location: location))
        }
        return settings
    }

    /// The folder of the file at `path`, against which its relative paths are read.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func readFailureReason(_ path: String) -> String {
        var info = stat()
        if stat(path, &info) != 0 { return String(cString: strerror(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return "it is a directory" }
        return access(path, R_OK) == 0 ? "read failed" : String(cString: strerror(EACCES))
    }
}
