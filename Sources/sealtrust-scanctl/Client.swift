import Glibc
import JSONCore
import Logging
import ProductVersion
import StationClient
import StationWire

/// Runs one command of daemon.md against the daemon and returns the exit status.
struct Client {
    static let verifyTimeout = Duration.seconds(120)
    static let statusTimeout = Duration.seconds(10)

    let invocation: Invocation
    private let requestID: JSON = .string("scanctl-\(getpid())")

    init(invocation: Invocation) {
        self.invocation = invocation
    }

    func run() async throws(DaemonFailure) -> Int32 {
        if invocation.action == .help {
            Output.line(Invocation.usage)
            return ExitStatus.done
        }
        if invocation.action == .version {
            Output.line("sealtrust-scanctl \(ProductVersion.current)")
            return ExitStatus.done
        }
        let connection = try await greet()
        defer { connection.close() }
        if let lane = invocation.lane, let lanes = connection.hello.message.json["lanes"]?.arrayValue, !lanes.contains(.string(lane)) {
            // A mistyped lane would show nothing, for ever.
            let names = lanes.compactMap(\.stringValue).map { TerminalText.escaped($0) }
            Output.complain("the daemon has no lane \(lane) (\(names.isEmpty ? "it has no lanes" : "its lanes: " + names.joined(separator: ", ")))")
            return ExitStatus.usage
        }
        var formatter = EventFormatter()
        switch invocation.action {
        case .watch:
            show(connection.hello.message, with: &formatter)
            guard invocation.reconnect else { return try await follow(connection, with: &formatter) }
            return try await watchAcrossRestarts(connection, with: &formatter)
        case .replay(let since):
            try send(ClientCommand(id: requestID, action: .replay(since: since)), on: connection)
            return try await follow(connection, with: &formatter)
        case .verify(let raw):
            try send(ClientCommand(action: .watch([])), on: connection)
            try send(ClientCommand(id: requestID, action: .verify(raw: raw)), on: connection)
            return try await awaitVerdict(connection, with: &formatter)
        case .status:
            try send(ClientCommand(id: requestID, action: .status), on: connection)
            return try await awaitAnswer(connection, .status, within: Client.statusTimeout, lines: StatusFormatter.lines) { _ in ExitStatus.done }
        case .passport(let query):
            try send(ClientCommand(action: .watch([])), on: connection)
            try send(ClientCommand(id: requestID, action: .passport(query)), on: connection)
            // Exit 0 when the passport was read (a part that failed says so on its line), 1 when it was not.
            return try await awaitAnswer(connection, .passport, within: Client.verifyTimeout, lines: PassportFormatter.lines) { answer in
                answer["outcome"] == nil ? ExitStatus.done : ExitStatus.otherOutcome
            }
        case .help, .version:
            return ExitStatus.done
        }
    }

    /// A connection that has read the daemon's `hello` of protocol 1.
    private func greet() async throws(DaemonFailure) -> StationConnection {
        do {
            return try await StationConnection.connect(path: invocation.socketPath, helloTimeout: Client.statusTimeout)
        } catch {
            throw DaemonFailure(error, path: invocation.socketPath)
        }
    }

    private func send(_ command: ClientCommand, on connection: StationConnection) throws(DaemonFailure) {
        do {
            try connection.send(command)
        } catch {
            throw DaemonFailure(error, path: invocation.socketPath)
        }
    }

    /// The next message; nil when `timeout` passes first (the connection is closed then). A connection that ends is
    /// a failure.
    private func next(on connection: StationConnection, within timeout: Duration? = nil) async throws(DaemonFailure) -> StationLine? {
        let message: StationLine?
        if let timeout {
            message = await withTaskGroup(of: StationLine?.self) { group in
                group.addTask { await connection.next() }
                group.addTask {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                    connection.close()
                    return nil
                }
                defer { group.cancelAll() }
                return await group.next() ?? nil
            }
        } else {
            message = await connection.next()
        }
        if let message { return message }
        if timeout != nil, connection.ending == .closed { return nil }
        throw DaemonFailure(connection.ending ?? .closedByDaemon, path: invocation.socketPath)
    }

    /// `watch --reconnect`: a daemon that goes away (a restart, an upgrade) is waited for, and what it journaled
    /// meanwhile comes by replay from the last seq shown, so nothing is missed or shown twice.
    private func watchAcrossRestarts(_ first: StationConnection, with formatter: inout EventFormatter) async throws(DaemonFailure) -> Int32 {
        var connection = first
        var seam = ReplaySeam(since: first.hello.lastSeq)
        while true {
            do throws(DaemonFailure) {
                while true {
                    guard let received = try await next(on: connection) else { continue }
                    if isRefusal(received.json) { return refuse(received.json) }
                    if let seq = received.seq, seam.take(seq) == .skip { continue }
                    show(received, with: &formatter)
                }
            } catch {
                Output.complain("\(error.message); waiting for the daemon")
            }
            connection.close()
            while true {
                guard (try? await Task.sleep(for: Self.reconnectPause)) != nil else { return ExitStatus.unreachable }
                guard let greeted = try? await greet() else { continue }
                show(greeted.hello.message, with: &formatter)
                // A journal behind what was shown is a new one: its old seqs cannot be replayed, its next ones are new.
                if !seam.connected(newest: greeted.hello.lastSeq) { seam.resume(after: greeted.hello.lastSeq) }
                // A daemon gone again before the replay is asked is waited for again.
                guard (try? greeted.send(ClientCommand(id: requestID, action: .replay(since: seam.lastSeq)))) != nil else {
                    greeted.close()
                    continue
                }
                connection = greeted
                break
            }
        }
    }

    /// How long `watch --reconnect` waits between two attempts to reach the daemon.
    private static let reconnectPause = Duration.seconds(1)

    private func show(_ received: StationLine, with formatter: inout EventFormatter) {
        // `--lane`: a journaled event of another lane's source, or of the station as a whole, is not shown.
        if let lane = invocation.lane, received.seq != nil, received.json["lane"] != .string(lane) { return }
        if invocation.json {
            Output.line(received.line)
        } else if let line = formatter.line(for: received.json) {
            if EventFormatter.isAlert(received.json) { Output.alert(line) } else { Output.line(line) }
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

    private func follow(_ connection: StationConnection, with formatter: inout EventFormatter) async throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try await next(on: connection) else { continue }
            if isRefusal(received.json) { return refuse(received.json) }
            if !invocation.follow && isEndOfReplay(received.json) { return ExitStatus.done }
            show(received, with: &formatter)
        }
    }

    /// The `ack` with `replayed` that answers our `replay` once the journal's events are out.
    private func isEndOfReplay(_ message: JSON) -> Bool {
        MessageType(of: message) == .ack && message["id"] == requestID && message["replayed"] != nil
    }

    private func awaitVerdict(_ connection: StationConnection, with formatter: inout EventFormatter) async throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try await next(on: connection, within: Client.verifyTimeout) else {
                throw DaemonFailure(message: "no verdict from the daemon within \(Client.verifyTimeout.components.seconds) s")
            }
            let message = received.json
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
    private func awaitAnswer(_ connection: StationConnection, _ type: MessageType, within timeout: Duration,
                             lines: (JSON) -> [String], status: (JSON) -> Int32) async throws(DaemonFailure) -> Int32 {
        while true {
            guard let received = try await next(on: connection, within: timeout) else {
                throw DaemonFailure(message: "no \(type.name) from the daemon within \(timeout.components.seconds) s")
            }
            if isRefusal(received.json) { return refuse(received.json) }
            guard received.type == type, received.json["id"] == requestID else { continue }
            if invocation.json {
                Output.line(received.line)
            } else {
                lines(received.json).map(TerminalText.escaped).forEach(Output.line)
            }
            return status(received.json)
        }
    }
}
