import Logging
import StationWire

/// What the command line asks for, per daemon.md.
struct Invocation: Equatable {
    enum Action: Equatable {
        case watch
        case verify(String)
        case status
        case replay(since: UInt64)
        case passport(PassportQuery)
        case help
        case version
    }

    static let defaultSocket = "/run/sealtrust-scand/scand.sock"
    static let usage = """
        usage: sealtrust-scanctl [--socket PATH] watch [--json] [--reconnect] [--lane NAME]
               sealtrust-scanctl [--socket PATH] verify [--json] STRING
               sealtrust-scanctl [--socket PATH] status [--json]
               sealtrust-scanctl [--socket PATH] replay [--json] --since N [--no-follow] [--lane NAME]
               sealtrust-scanctl [--socket PATH] passport [--json] [--tier TIER] SCAN_ID|IDENTIFIER|GTIN
               sealtrust-scanctl --version
        exit status: 0 done (verify: authentic, no theft report; passport: read); 4 verify gave identified (a printed
          code: no proof); 1 another outcome, a theft report, a passport not read or a refused command; 2 bad usage;
          3 the daemon cannot be reached
        """

    var socketPath = defaultSocket
    var action: Action
    /// The raw protocol lines instead of one readable line per event.
    var json = false
    /// `watch`: when the daemon goes away, wait for it and go on by replay from the last seq seen.
    var reconnect = false
    /// `replay`: stop at the end of the replay instead of following live events.
    var follow = true
    /// `watch` and `replay`: only the events of this lane's sources.
    var lane: String?

    struct UsageError: Error {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var socketPath = defaultSocket
        var json = false
        var reconnect = false
        var noFollow = false
        var since: UInt64?
        var lane: String?
        var tier: AccessTier?
        var command: String?
        var operands: [String] = []
        var index = 0
        func value(of flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if (command == "verify" || command == "passport") && operands.isEmpty && !argument.hasPrefix("--") {
                operands.append(argument)
            } else if argument == "--" && command == "verify" && operands.isEmpty {
                index += 1
                guard index < arguments.count else { throw UsageError(message: "verify needs the string to check") }
                operands.append(arguments[index])
            } else if argument == "--socket" {
                socketPath = try value(of: argument)
            } else if argument.hasPrefix("--socket=") {
                socketPath = String(argument.dropFirst("--socket=".count))
            } else if argument == "--json" {
                json = true
            } else if argument == "--reconnect" {
                reconnect = true
            } else if argument == "--no-follow" {
                noFollow = true
            } else if argument == "--version" {
                return Invocation(socketPath: socketPath, action: .version)
            } else if argument == "--since" || argument.hasPrefix("--since=") {
                let text = argument == "--since" ? try value(of: argument) : String(argument.dropFirst("--since=".count))
                guard let number = UInt64(text) else {
                    throw UsageError(message: "--since needs a whole number of 0 or more, not \"\(text)\"")
                }
                since = number
            } else if argument == "--lane" || argument.hasPrefix("--lane=") {
                let text = argument == "--lane" ? try value(of: argument) : String(argument.dropFirst("--lane=".count))
                guard LaneName.isValid(text) else {
                    throw UsageError(message: "--lane: a lane's name is \(LaneName.rule), not \"\(TerminalText.escaped(text, keepingAtMost: 64))\"")
                }
                lane = text
            } else if argument == "--tier" || argument.hasPrefix("--tier=") {
                let text = argument == "--tier" ? try value(of: argument) : String(argument.dropFirst("--tier=".count))
                guard let named = AccessTier(rawValue: text) else {
                    let names = AccessTier.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(message: "--tier is one of \(names), not \"\(text)\"")
                }
                tier = named
            } else if argument == "--help" || argument == "-h" {
                return Invocation(socketPath: socketPath, action: .help)
            } else if argument.hasPrefix("-") {
                throw UsageError(message: "unknown option \(argument)")
            } else if command == nil {
                command = argument
            } else {
                operands.append(argument)
            }
            index += 1
        }
        guard !socketPath.isEmpty else { throw UsageError(message: "--socket needs a path") }
        guard tier == nil || command == "passport" else { throw UsageError(message: "--tier is for passport only") }
        guard lane == nil || command == "watch" || command == "replay" else { throw UsageError(message: "--lane is for watch and replay only") }
        let action: Action
        switch command {
        case "watch":
            guard operands.isEmpty, since == nil, !noFollow else { throw UsageError(message: "watch takes only --json, --reconnect and --lane") }
            action = .watch
        case "verify":
            guard operands.count == 1 else {
                throw UsageError(message: operands.isEmpty ? "verify needs the string to check" : "verify takes one string")
            }
            guard since == nil, !reconnect, !noFollow else { throw UsageError(message: "verify takes only --json") }
            // An empty string is no scan: the daemon would journal it as one, and a script's empty variable is the cause.
            guard !operands[0].isEmpty else { throw UsageError(message: "verify needs a string to check, not an empty one") }
            action = .verify(operands[0])
        case "status":
            guard operands.isEmpty, since == nil, !reconnect, !noFollow else { throw UsageError(message: "status takes only --json") }
            action = .status
        case "replay":
            guard operands.isEmpty, !reconnect else { throw UsageError(message: "replay takes only --since N, --no-follow, --lane and --json") }
            guard let since else { throw UsageError(message: "replay needs --since N") }
            action = .replay(since: since)
        case "passport":
            guard operands.count == 1 else {
                throw UsageError(message: operands.isEmpty ? "passport needs a scan id, an identifier or a GTIN" : "passport takes one of them")
            }
            guard since == nil, !reconnect, !noFollow else { throw UsageError(message: "passport takes only --tier and --json") }
            let subject = subject(of: operands[0])
            if case .gtin = subject, tier != nil { throw UsageError(message: "a GTIN reads a model's passport, which has no tier") }
            action = .passport(PassportQuery(subject: subject, tier: tier))
        case nil:
            throw UsageError(message: "a command is needed: watch, verify, status, replay or passport")
        case let other?:
            throw UsageError(message: "unknown command \"\(other)\"")
        }
        return Invocation(socketPath: socketPath, action: action, json: json, reconnect: reconnect, follow: !noFollow, lane: lane)
    }

    /// A scan id is the daemon's UUID; 8, 12, 13 or 14 digits are a GTIN; anything else is a passport identifier.
    static func subject(of operand: String) -> PassportQuery.Subject {
        let bytes = Array(operand.utf8)
        let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        if [8, 12, 13, 14].contains(bytes.count) && bytes.allSatisfy(isDigit) { return .gtin(operand) }
        let isHex = { (byte: UInt8) in isDigit(byte) || (byte >= 0x61 && byte <= 0x66) }
        let dashes = [8, 13, 18, 23]
        let isScanID = bytes.count == 36 && bytes.indices.allSatisfy { dashes.contains($0) ? bytes[$0] == 0x2D : isHex(bytes[$0]) }
        return isScanID ? .scan(id: operand) : .identifier(operand)
    }
}
