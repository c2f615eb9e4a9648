import Glibc
import JSONCore
import Logging
import ProductVersion
import StationWire

/// Runs one command of daemon.md against the daemon and returns the exit status.
struct Client {
    static let verifyTimeout = 120.0
    static let statusTimeout = 10.0

    let invocation: Invocation
    private let requestID: JSON = .string("scanctl-\(getpid())")

    init(invocation: Invocation) {
        self.invocation = invocation
    }

    func run() throws(DaemonFailure) -> Int32 {
        if invocation.action == .help {
            Output.line(Invocation.usage)
            return ExitStatus.done
        }
        if invocation.action == .version {
            Output.line("sealtrust-scanctl \(ProductVersion.current)")
            return ExitStatus.done
        }
        let (connection, hello) = try greet()
        if let lane = invocation.lane, let lanes = hello.message["lanes"]?.arrayValue, !lanes.contains(.string(lane)) {
            // A mistyped lane would show nothing, for ever.
            let names = lanes.compactMap(\.stringValue).map { TerminalText.escaped($0) }
            Output.complain("the daemon has no lane \(lane) (\(names.isEmpty ? "it has no lanes" : "its lanes: " + names.joined(separator: ", ")))")
            return ExitStatus.usage
        }
        var formatter = EventFormatter()
        switch invocation.action {
        case .watch:
            show(hello, with: &formatter)
            guard invocation.reconnect else { return try follow(connection, with: &formatter) }
            return try watchAcrossRestarts(connection, hello: hello.message, with: &formatter)
        case .replay(let since):
            try connection.send(ClientCommand(id: requestID, action: .replay(since: since)))
            return try follow(connection, with: &formatter)
        case .verify(let raw):
            try connection.send(ClientCommand(action: .watch([])))
            try connection.send(ClientCommand(id: requestID, action: .verify(raw: raw)))
            return try awaitVerdict(connection, with: &formatter)
        case .status:
            try connection.send(ClientCommand(id: requestID, action: .status))
            return try awaitAnswer(connection, .status, within: Client.statusTimeout, lines: StatusFormatter.lines) { _ in ExitStatus.done }
        case .passport(let query):
            try connection.send(ClientCommand(action: .watch([])))
            try connection.send(ClientCommand(id: requestID, action: .passport(query)))
            // Exit 0 when the passport was read (a part that failed says so on its line), 1 when it was not.
            return try awaitAnswer(connection, .passport, within: Client.verifyTimeout, lines: PassportFormatter.lines) { answer in
                answer["outcome"] == nil ? ExitStatus.done : ExitStatus.otherOutcome
            }
        case .help, .version:
            return ExitStatus.done
        }
    }

    /// A connection that has read the daemon's `hello` of protocol 1.
    private func greet() throws(DaemonFailure) -> (DaemonConnection, (line: String, message: JSON)) {
        let connection = try DaemonConnection(path: invocation.socketPath)
        guard let hello = try connection.readMessage(timeout: Client.statusTimeout) else {
            throw DaemonFailure(message: "the daemon did not say hello within \(Int(Client.statusTimeout)) s")
        }
        if MessageType(of: hello.message) == .error {
            let detail = hello.message["detail"]?.stringValue ?? hello.line
            throw DaemonFailure(message: "the daemon refused the connection: \(detail)")
        }
        guard MessageType(of: hello.message) == .hello, hello.message["protocol"] == .int(ServerAnswer.protocolVersion) else {
            throw DaemonFailure(message: "the daemon broke the protocol: expected hello of protocol 1, got \(hello.line)")
        }
        return (connection, hello)
    }

    /// `watch --reconnect`: a daemon that goes away (a restart, an upgrade) is waited for, and what it journaled
    /// meanwhile comes by replay from the last seq shown, so nothing is missed or shown twice.
    private func watchAcrossRestarts(_ first: DaemonConnection, hello: JSON, with formatter: inout EventFormatter)
        throws(DaemonFailure) -> Int32 {
        var connection = first
        var seam = ReplaySeam(newest: Self.lastSeq(in: hello))
        while true {
            do throws(DaemonFailure) {
                while true {
                    guard let received = try connection.readMessage() else { continue }
                    if isRefusal(received.message) { return refuse(received.message) }
                    if let seq = received.message["seq"]?.integerValue, seq > 0, !seam.shows(UInt64(seq)) { continue }
                    show(received, with: &formatter)
                }
            } catch {
                Output.complain("\(error.message); waiting for the daemon")
            }
            while true {
                usleep(Self.reconnectPause)
                guard let greeted = try? greet() else { continue }
                show(greeted.1, with: &formatter)
                let since = seam.connected(newest: Self.lastSeq(in: greeted.1.message))
                // A daemon gone again before the replay is asked is waited for again.
                guard (try? greeted.0.send(ClientCommand(id: requestID, action: .replay(since: since)))) != nil else { continue }
                connection = greeted.0
                break
            }
        }
    }

    /// How long `watch --reconnect` waits between two attempts to reach the daemon, in microseconds.
    private static let reconnectPause: useconds_t = 1_000_000

    private static func lastSeq(in hello: JSON) -> UInt64 {
        hello["last_seq"]?.integerValue.map { UInt64(max(0, $0)) } ?? 0
    }

    private func show(_ received: (line: String, message: JSON), with formatter: inout EventFormatter) {
        // `--lane`: a journaled event of another lane's source, or of the station as a whole, is not shown.
        if let lane = invocation.lane, received.message["seq"] != nil, received.message["lane"] != .string(lane) { return }
        if invocation.json {
            Output.line(received.line)
        } else if let line = formatter.line(for: received.message) {
            if EventFormatter.isAlert(received.message) { Output.alert(line) } else { Output.line(line) }
        }
    }

    /// The refusal of one of our commands: said on stderr, exit 1.
    private func isRefusal(_ message: JSON) -> Bool {
        MessageType(of: message) == .error && message["id"] == requestID
    }

    private func refuse(_ message: JSON) -> Int32 {
        let code = message["code"]?.stringValue ?? "error"
        let detail = message["detail"]?.stringValue ?? ""
        Output.complain("the daemon refused: \(code): \(detail)")
        return ExitStatus.otherOutcome
    }

    private func follow(_ connection: DaemonConnection, with formatter: inout EventFormatter) throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try connection.readMessage() else { continue }
            if isRefusal(received.message) { return refuse(received.message) }
            if !invocation.follow && isEndOfReplay(received.message) { return ExitStatus.done }
            show(received, with: &formatter)
        }
    }

    /// The `ack` with `replayed` that answers our `replay` once the journal's events are out.
    private func isEndOfReplay(_ message: JSON) -> Bool {
        MessageType(of: message) == .ack && message["id"] == requestID && message["replayed"] != nil
    }

    private func awaitVerdict(_ connection: DaemonConnection, with formatter: inout EventFormatter) throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try connection.readMessage(timeout: Client.verifyTimeout) else {
                throw DaemonFailure(message: "no verdict from the daemon within \(Int(Client.verifyTimeout)) s")
            }
            let message = received.message
            if isRefusal(message) { return refuse(message) }
            guard message["request_id"] == requestID else { continue }
            if MessageType(of: message) == .event(.scan) {
                _ = formatter.line(for: message)
                continue
            }
            guard MessageType(of: message) == .event(.verdict) else { continue }
            show(received, with: &formatter)
            guard let outcome = message["outcome"]?.stringValue else {
                throw DaemonFailure(message: "the daemon broke the protocol: a verdict without an outcome")
            }
            return Self.exitStatus(outcome: Outcome(rawValue: outcome), theftReported: message["theft_reported"] == .bool(true))
        }
    }

    /// A theft report never passes; `identified` has a status of its own, so that no script takes it for proof. An
    /// outcome this build does not know (nil) passes neither.
    static func exitStatus(outcome: Outcome?, theftReported: Bool) -> Int32 {
        switch outcome {
        case _ where theftReported: ExitStatus.otherOutcome
        case .authentic: ExitStatus.done
        case .identified: ExitStatus.identified
        default: ExitStatus.otherOutcome
        }
    }

    /// Prints the answer of `type` to our command, as lines or as it came, and returns the exit status `status` gives
    /// it; a refusal is said on stderr (exit 1).
    private func awaitAnswer(_ connection: DaemonConnection, _ type: MessageType, within timeout: Double,
                             lines: (JSON) -> [String], status: (JSON) -> Int32) throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try connection.readMessage(timeout: timeout) else {
                throw DaemonFailure(message: "no \(type.name) from the daemon within \(Int(timeout)) s")
            }
            if isRefusal(received.message) { return refuse(received.message) }
            guard MessageType(of: received.message) == type, received.message["id"] == requestID else { continue }
            if invocation.json {
                Output.line(received.line)
            } else {
                lines(received.message).map(TerminalText.escaped).forEach(Output.line)
            }
            return status(received.message)
        }
    }
}
