/// What the command line asks for, per daemon.md.
struct Invocation: Equatable {
    enum Action: Equatable {
        case watch
        case verify(String)
        case status
        case replay(since: UInt64)
        case help
        case version
    }

    static let defaultSocket = "/run/sealtrust-scand/scand.sock"
    static let usage = """
        usage: sealtrust-scanctl [--socket PATH] watch [--json] [--reconnect]
               sealtrust-scanctl [--socket PATH] verify [--json] STRING
               sealtrust-scanctl [--socket PATH] status [--json]
               sealtrust-scanctl [--socket PATH] replay [--json] --since N [--no-follow]
               sealtrust-scanctl --version
        exit status: 0 done (verify: authentic, no theft report); 4 verify gave identified (a printed code: no proof);
          1 another outcome, a theft report or a refused command; 2 bad usage; 3 the daemon cannot be reached
        """

    var socketPath = defaultSocket
    var action: Action
    /// The raw protocol lines instead of one readable line per event.
    var json = false
    /// `watch`: when the daemon goes away, wait for it and go on by replay from the last seq seen.
    var reconnect = false
    /// `replay`: stop at the end of the replay instead of following live events.
    var follow = true

    struct UsageError: Error {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var socketPath = defaultSocket
        var json = false
        var reconnect = false
        var noFollow = false
        var since: UInt64?
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
            if command == "verify" && operands.isEmpty && !argument.hasPrefix("--") {
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
        let action: Action
        switch command {
        case "watch":
            guard operands.isEmpty, since == nil, !noFollow else { throw UsageError(message: "watch takes only --json and --reconnect") }
            action = .watch
        case "verify":
            guard operands.count == 1 else {
                throw UsageError(message: operands.isEmpty ? "verify needs the string to check" : "verify takes one string")
            }
            guard since == nil, !reconnect, !noFollow else { throw UsageError(message: "verify takes only --json") }
            action = .verify(operands[0])
        case "status":
            guard operands.isEmpty, since == nil, !reconnect, !noFollow else { throw UsageError(message: "status takes only --json") }
            action = .status
        case "replay":
            guard operands.isEmpty, !reconnect else { throw UsageError(message: "replay takes only --since N, --no-follow and --json") }
            guard let since else { throw UsageError(message: "replay needs --since N") }
            action = .replay(since: since)
        case nil:
            throw UsageError(message: "a command is needed: watch, verify, status or replay")
        case let other?:
            throw UsageError(message: "unknown command \"\(other)\"")
        }
        return Invocation(socketPath: socketPath, action: action, json: json, reconnect: reconnect, follow: !noFollow)
    }
}
