/// The command line of outputs.md's `sealtrust-mqtt`.
struct BridgeOptions: Sendable {
    enum Command: Sendable {
        case bridge
        case watch
        case help
        case version
    }

    var command = Command.bridge
    var socketPath = "/run/sealtrust-scand/scand.sock"
    /// `--url`, in the order given: the first that answers is used, the first of all whenever it answers again.
    var urls: [BrokerAddress] = []
    var topicPrefix = "sealtrust"
    /// `--mqtt-version 3.1.1`: every CONNECT is MQTT 3.1.1 (default 5, with 3.1.1 where a broker refuses 5).
    var mqttVersion = BrokerSettings.ProtocolVersion.mqtt5
    var credentialsPath: String?
    var caFile: String?
    var certificate: String?
    var key: String?
    var stateDirectory = "/var/lib/sealtrust-mqtt"
    /// `watch --output DIR`: each station's events in order in DIR/<station>.jsonl.
    var outputDirectory: String?

    static let usage = """
        usage: sealtrust-mqtt [--socket PATH] --url mqtt://HOST[:PORT]|mqtts://HOST[:PORT]... [--topic-prefix P]
                              [--mqtt-version 5|3.1.1] [--credentials FILE] [--ca FILE] [--cert FILE --key FILE] [--state-dir DIR]
                              [--version] [--help]
               sealtrust-mqtt watch --url URL... [--topic-prefix P] [--mqtt-version 5|3.1.1] [--credentials FILE] [--ca FILE] [--cert FILE --key FILE]
                                    [--output DIR]
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> BridgeOptions {
        var options = BridgeOptions()
        var rest = arguments[...]
        if rest.first == "watch" {
            options.command = .watch
            rest = rest.dropFirst()
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--help", "-h": return BridgeOptions(command: .help)
            case "--version": return BridgeOptions(command: .version)
            default: break
            }
            let (name, inline) = argument.split(separator: "=", maxSplits: 1).map(String.init).pair
            guard name.hasPrefix("--") else { throw UsageError("unexpected argument '\(argument.printable)' (see --help)") }
            guard let value = inline ?? rest.popFirst() else { throw UsageError("\(name) needs a value") }
            switch name {
            case "--url":
                options.urls.append(try BrokerAddress(parsing: value))
                guard options.urls.count <= 8 else { throw UsageError("--url: at most 8 brokers") }
            case "--topic-prefix":
                guard !value.isEmpty, !value.contains("+"), !value.contains("#"), !value.hasSuffix("/"),
                      value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }), value.utf8.count <= 200
                else { throw UsageError("--topic-prefix must be a topic without +, # or a trailing /") }
                options.topicPrefix = value
            case "--mqtt-version":
                switch value {
                case "5": options.mqttVersion = .mqtt5
                case "3.1.1": options.mqttVersion = .mqtt311
                default: throw UsageError("--mqtt-version is 5 or 3.1.1")
                }
            case "--credentials": options.credentialsPath = value
            case "--ca": options.caFile = value
            case "--cert": options.certificate = value
            case "--key": options.key = value
            case "--socket" where options.command == .bridge: options.socketPath = value
            case "--state-dir" where options.command == .bridge: options.stateDirectory = value
            case "--output" where options.command == .watch: options.outputDirectory = value
            default: throw UsageError("unknown option \(name.printable) (see --help)")
            }
        }
        guard !options.urls.isEmpty else { throw UsageError("--url is required (see --help)") }
        guard (options.certificate == nil) == (options.key == nil) else { throw UsageError("--cert and --key go together") }
        if !options.urls.contains(where: \.usesTLS) && (options.caFile != nil || options.certificate != nil) {
            throw UsageError("--ca, --cert and --key need an mqtts:// URL")
        }
        return options
    }
}

extension Array where Element == String {
    fileprivate var pair: (String, String?) { (self.first ?? "", count > 1 ? self[1] : nil) }
}
