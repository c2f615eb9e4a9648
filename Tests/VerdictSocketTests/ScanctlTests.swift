import Foundation
import Glibc
import JSONCore
import ScanJournal
import Synchronization
import TestSupport
import Testing
import VerdictSocket

/// `sealtrust-scanctl`, the built binary, against a real server.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ScanctlTests {
    @Test func statusPrintsReadableLinesAndExitsZero() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.emit("source")
        try daemon.start()
        let result = try Scanctl.run(["--socket", daemon.socketPath, "status"])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                daemon: sealtrust-scand 0.1.0
                station: gate-3
                up: 42s
                source nfc:Virtual PCD 00 00: nfc, ready, last scan 2026-12-01T11:59:00.000Z
                scans: 3
                verdicts: authentic 2
                api errors: 1
                last api error: (at 2026-12-01T12:00:00.000Z, kind transport, cause timeout)
                token: present
                clients: 1
                last seq: 1

                """)
        #expect(result.standardError.isEmpty)
    }

    @Test func statusJSONPrintsTheAnswerLine() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let result = try Scanctl.run(["status", "--json", "--socket", daemon.socketPath])
        #expect(result.status == 0)
        let status = try JSON.parse(result.standardOutput.dropLast())
        #expect(status["type"] == "status")
        #expect(status["clients"] == 1)
    }

    @Test func verifySendsTheStringExactlyAndExitsByOutcome() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let raw = " https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086\té\"\\ "
        let authentic = try Scanctl.run(["--socket", daemon.socketPath, "verify", raw])
        #expect(authentic.status == 0)
        #expect(authentic.standardOutput.contains(" verdict manual  authentic\n"))
        #expect(daemon.verifications.withLock { $0.map(\.raw) } == [raw])

        daemon.outcome.withLock { $0 = "replay" }
        let replay = try Scanctl.run(["--socket", daemon.socketPath, "verify", "--json", "https://sealtrust.io/c?x"])
        #expect(replay.status == 1)
        let verdict = try JSON.parse(replay.standardOutput.dropLast())
        #expect(verdict["outcome"] == "replay")
        #expect(daemon.verifications.withLock { $0.last?.raw } == "https://sealtrust.io/c?x")

        daemon.outcome.withLock { $0 = "identified" }
        #expect(try Scanctl.run(["--socket", daemon.socketPath, "verify", "--", "--socket"]).status == 4, "identified is no proof")
        #expect(daemon.verifications.withLock { $0.last?.raw } == "--socket")
    }

    @Test func anUnreachableDaemonIsExitThreeWithOneLine() throws {
        let result = try Scanctl.run(["--socket", "/tmp/no-such-dir-\(getpid())/scand.sock", "status"])
        #expect(result.status == 3)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("cannot reach the daemon"))
        #expect(result.standardError.contains("systemctl status sealtrust-scand"), "how to check the service: \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func theHelpNamesJSONForEveryCommandThatTakesItAndEveryExitStatus() throws {
        let help = try Scanctl.run(["--help"])
        let lines = (help.standardOutput + help.standardError).split(separator: "\n")
        for command in ["watch", "verify", "status", "replay"] {
            let line = lines.first { $0.contains("] \(command) ") || $0.hasSuffix("] \(command)") }
            #expect(line?.contains("--json") == true, "\(command): \(line ?? "no line")")
        }
        for status in ["0", "1", "2", "3", "4"] {
            #expect(lines.contains { $0.contains(" \(status) ") || $0.contains(": \(status) ") }, "exit \(status) unnamed")
        }
    }

    @Test(arguments: [
        [], ["watch", "extra"], ["replay"], ["replay", "--since", "-1"], ["replay", "--since", "ten"], ["verify"], ["verify", ""],
        ["verify", "--", ""],
        ["status", "--colour"], ["dance"], ["--socket"],
    ])
    func badUsageIsExitTwo(_ arguments: [String]) throws {
        let result = try Scanctl.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("sealtrust-scanctl: "))
    }

    @Test func aPeerThatBreaksTheProtocolIsExitThree() throws {
        let directory = try FakeDaemon()
        defer { directory.tearDown() }
        let listener = try boundSocket(at: directory.socketPath, listening: true)
        defer { close(listener) }
        Thread {
            let peer = accept(listener, nil, nil)
            let garbage = Array("HTTP/1.1 400 Bad Request\n".utf8)
            _ = garbage.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(peer)
        }.start()
        let result = try Scanctl.run(["--socket", directory.socketPath, "status"])
        #expect(result.status == 3)
        #expect(result.standardError.contains("broke the protocol"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func watchPrintsOneReadableLinePerEvent() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let watcher = try Scanctl.start(["--socket", daemon.socketPath, "watch"])
        defer { watcher.stop() }
        #expect(try watcher.readLine() == "connected to dock-3 (sealtrust-scand 0.1.0) last seq 0")
        #expect(waitUntil { daemon.server.clientCount == 1 })
        let url = "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"
        let source = try daemon.emit(
            "source", [("id", "nfc:Virtual PCD 00 00"), ("medium", "nfc"), ("state", "ready"), ("detail", "reader attached")])
        let scan = try daemon.emit(
            "scan",
            [("scan_id", "s1"), ("source", "nfc:Virtual PCD 00 00"), ("medium", "nfc"), ("raw", .string(url)), ("code", "chip")])
        let verdict = try daemon.emit(
            "verdict",
            [
                ("scan_id", "s1"), ("outcome", "authentic"), ("product_name", "Chronograph 42"), ("brand", "Maison Exemple"),
                ("seal", .object([("status", "intact"), ("policy", "inform")])), ("theft_reported", false),
            ])
        let readError = try daemon.emit(
            "read_error", [("source", "nfc:Virtual PCD 00 01"), ("reason", "removed_during_read"), ("detail", "card removed")])
        let opened = try daemon.emit(
            "verdict", [("scan_id", "s2"), ("outcome", "authentic"), ("seal", .object([("status", "opened"), ("policy", "degrade")])), ("theft_reported", true)])
        let replay = try daemon.emit(
            "verdict",
            [
                ("scan_id", "s3"), ("outcome", "replay"), ("message", "Alert. This is the signal that a label may have been copied."),
                ("error", .object([("kind", "api"), ("http_status", 409), ("code", "REPLAY_DETECTED"), ("detail", "REPLAY_DETECTED: counter 61 not above 61")])),
            ])
        let minting = try daemon.emit(
            "verdict",
            [
                ("scan_id", "s4"), ("outcome", "minting_in_progress"),
                ("error", .object([("kind", "api"), ("http_status", 409), ("code", "MINT_PENDING"), ("detail", "certificate being written")])),
            ])
        #expect(try watcher.readLine() == "\(clock(source)) #1 source nfc:Virtual PCD 00 00  ready  reader attached")
        #expect(try watcher.readLine() == "\(clock(scan)) #2 scan nfc:Virtual PCD 00 00  chip  \(url)")
        #expect(
            try watcher.readLine()
                == "\(clock(verdict)) #3 verdict nfc:Virtual PCD 00 00  authentic  Chronograph 42 — Maison Exemple  seal: intact")
        #expect(try watcher.readLine() == "\(clock(readError)) #4 read_error nfc:Virtual PCD 00 01  removed_during_read  card removed")
        #expect(try watcher.readLine() == "\(clock(opened)) #5 verdict authentic  seal: opened (degrade)  THEFT REPORTED")
        #expect(try watcher.readLine() == "\(clock(replay)) #6 verdict replay  \"Alert. This is the signal that a label may have been copied.\"  error: api 409: REPLAY_DETECTED: counter 61 not above 61")
        #expect(try watcher.readLine() == "\(clock(minting)) #7 verdict minting_in_progress  error: api 409 MINT_PENDING: certificate being written")

        daemon.server.stop()
        #expect(watcher.wait() == 3)
        #expect(watcher.standardError().contains("closed the connection"))
    }

    @Test func watchJSONAndReplayPrintTheRawLines() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        let old = try (0..<3).map { _ in try daemon.journal.append(type: "scan", fields: [("raw", "é\t")]) }
        try daemon.start()
        let watcher = try Scanctl.start(["--socket", daemon.socketPath, "watch", "--json"])
        defer { watcher.stop() }
        #expect(try JSON.parse(try watcher.readLine())["type"] == "hello")
        #expect(waitUntil { daemon.server.clientCount == 1 })
        let live = try daemon.emit("verdict", [("outcome", "replay")])
        #expect(try watcher.readLine() == live.line)

        let replayer = try Scanctl.start(["--socket", daemon.socketPath, "replay", "--since", "1"])
        defer { replayer.stop() }
        #expect(try replayer.readLine().hasSuffix(#"#2 scan é\x09"#))
        #expect(try replayer.readLine().hasSuffix(#"#3 scan é\x09"#))
        #expect(try replayer.readLine().hasSuffix("#4 verdict replay"))
        #expect(waitUntil { daemon.server.clientCount == 2 })
        try daemon.emit("source", [("id", "camera"), ("state", "absent")])
        #expect(try replayer.readLine().hasSuffix("#5 source camera  absent"))
        #expect(old.count == 3)
    }

    @Test func replayNoFollowStopsAtTheEndOfTheJournal() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        for _ in 0..<3 { _ = try daemon.journal.append(type: "scan", fields: [("raw", "x")]) }
        try daemon.start()
        let result = try Scanctl.run(["--socket", daemon.socketPath, "replay", "--since", "1", "--no-follow"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasSuffix("#2 scan x") && lines[1].hasSuffix("#3 scan x"), "\(lines)")

        let json = try Scanctl.run(["--socket", daemon.socketPath, "replay", "--since", "0", "--no-follow", "--json"])
        #expect(json.status == 0)
        #expect(json.standardOutput.split(separator: "\n").count == 3, "the seam ack itself is not printed")
    }

    /// The seam of `watch --reconnect`, scripted: the daemon that comes back sends a live event before the
    /// client's `replay` reaches it, and the replay brings that event again in its place. Each is shown once, in order.
    @Test func watchReconnectShowsAnEventOnceWhenItComesLiveAndAgainInTheReplay() throws {
        let directory = try FakeDaemon()
        defer { directory.tearDown() }
        let listener = try boundSocket(at: directory.socketPath, listening: true)
        defer { close(listener) }
        let asked = ReceivedCommand()
        Thread {
            let first = accept(listener, nil, nil)
            sendText(first, scriptedHello(lastSeq: 0) + scriptedSource(1, "absent"))
            close(first)
            let second = accept(listener, nil, nil)
            sendText(second, scriptedHello(lastSeq: 2) + scriptedSource(3, "ready"))
            let command = receiveLine(second)
            asked.line.withLock { $0 = command }
            let id = (try? JSON.parse(command))?["id"] ?? .null
            let ack = JSON.object([("type", "ack"), ("id", id), ("replayed", 2)]).encoded() + "\n"
            sendText(second, scriptedSource(2, "attached") + scriptedSource(3, "ready") + ack + scriptedSource(4, "removed"))
            _ = receiveLine(second)  // until the watcher is gone
            close(second)
        }.start()
        let watcher = try Scanctl.start(["--socket", directory.socketPath, "watch", "--reconnect"])
        defer { watcher.stop() }
        #expect(try watcher.readLine() == "connected to dock-3 (sealtrust-scand 0.1.0) last seq 0")
        #expect(try watcher.readLine().hasSuffix(" #1 source camera  absent  event 1"))
        #expect(try watcher.readLine() == "connected to dock-3 (sealtrust-scand 0.1.0) last seq 2")
        #expect(try watcher.readLine().hasSuffix(" #2 source camera  attached  event 2"))
        #expect(try watcher.readLine().hasSuffix(" #3 source camera  ready  event 3"))
        #expect(try watcher.readLine().hasSuffix(" #4 source camera  removed  event 4"))
        let command = try JSON.parse(try #require(asked.line.withLock { $0 }))
        #expect(command["cmd"] == "replay" && command["since"] == 1, "replay from the last seq shown")
    }

    @Test func versionIsPrintedWithoutADaemon() throws {
        let result = try Scanctl.run(["--version"])
        #expect(result.status == 0 && result.standardOutput == "sealtrust-scanctl 0.1.0\n")
    }

    @Test func alertsAreNotColouredIntoAPipe() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        daemon.outcome.withLock { $0 = "replay" }
        let replay = try Scanctl.run(["--socket", daemon.socketPath, "verify", "https://sealtrust.io/c?x"])
        #expect(replay.status == 1 && replay.standardOutput.contains("verdict manual  replay"))
        #expect(!replay.standardOutput.contains("\u{1B}"), "no colour codes into a pipe")
    }

    /// On a terminal an alert stands out in red; `NO_COLOR` turns that off.
    @Test(arguments: [false, true]) func alertsAreRedOnATerminalUnlessNoColorIsSet(noColor: Bool) throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        daemon.outcome.withLock { $0 = "replay" }
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtProduct("sealtrust-scanctl"))
        process.arguments = ["--socket", daemon.socketPath, "verify", "https://sealtrust.io/c?x"]
        process.environment = ["TERM": "xterm", "PATH": "/usr/bin:/bin"].merging(noColor ? ["NO_COLOR": "1"] : [:]) { $1 }
        let screen = try #require(FileHandle(forWritingAtPath: terminal.slavePath))
        process.standardOutput = screen
        try process.run()
        try screen.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let shown = try Self.terminalText(terminal, through: "replay")
        #expect(shown.contains("verdict manual  replay"), "\(shown.debugDescription)")
        #expect(shown.contains("\u{1B}[1;31m") == !noColor, "\(shown.debugDescription)")
    }

    /// What the terminal got, up to the end of the line that holds `word`.
    private static func terminalText(_ terminal: PseudoTerminal, through word: String) throws -> String {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let text = String(decoding: bytes, as: UTF8.self)
            if let found = text.range(of: word), text[found.upperBound...].contains("\n") { return text }
            guard ContinuousClock.now < deadline else { throw TimedOut() }
            var waiting = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(terminal.master, &chunk, chunk.count)
            guard count > 0 else { throw TimedOut() }
            bytes += chunk[0..<count]
        }
    }

    @Test func replayOfRemovedEventsIsRefused() throws {
        let daemon = try FakeDaemon(journalMaxBytes: 2_048, segmentBytes: 512)
        defer { daemon.tearDown() }
        for _ in 0..<100 { _ = try daemon.journal.append(type: "scan", fields: [("raw", "0123456789")]) }
        try daemon.start()
        let result = try Scanctl.run(["--socket", daemon.socketPath, "replay", "--since", "0"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("not_available"))
    }

    /// The event's `at` as scanctl shows it under TZ=UTC.
    private func clock(_ event: JournaledEvent) -> String {
        let at = (try? JSON.parse(event.line))?["at"]?.stringValue ?? ""
        return String(at.dropFirst(11).prefix(12))
    }
}

/// Runs the built `sealtrust-scanctl` under TZ=UTC.
final class Scanctl {
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var pending: [UInt8] = []

    static func run(_ arguments: [String]) throws -> Result {
        let running = try start(arguments)
        let status = running.wait()
        let standardOutput = String(decoding: running.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Result(status: status, standardOutput: standardOutput, standardError: running.standardError())
    }

    static func start(_ arguments: [String]) throws -> Scanctl {
        let scanctl = Scanctl()
        scanctl.process.executableURL = URL(fileURLWithPath: builtProduct("sealtrust-scanctl"))
        scanctl.process.arguments = arguments
        scanctl.process.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
        scanctl.process.standardOutput = scanctl.output
        scanctl.process.standardError = scanctl.errors
        try scanctl.process.run()
        return scanctl
    }

    func readLine(timeout: Double = 10) throws -> String {
        let descriptor = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[0..<newline], as: UTF8.self)
                pending.removeSubrange(0...newline)
                return line
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TimedOut() }
            guard poll(&waiting, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { throw TimedOut() }
            pending.append(contentsOf: chunk[0..<count])
        }
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func standardError() -> String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// SIGKILL: a child spawned from a test thread may inherit a mask that blocks SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}


/// What a scripted peer read from the client.
final class ReceivedCommand: Sendable {
    let line = Mutex<String?>(nil)
}

func scriptedHello(lastSeq: Int) -> String {
    #"{"type":"hello","protocol":1,"version":"0.1.0","station":"dock-3","sources":[],"last_seq":\#(lastSeq)}"# + "\n"
}

func scriptedSource(_ seq: Int, _ state: String) -> String {
    let fields: [(String, JSON)] = [
        ("type", "source"), ("seq", .int(Int64(seq))), ("at", "2026-12-01T12:00:00.000Z"), ("id", "camera"), ("medium", "qr"),
        ("state", .string(state)), ("detail", .string("event \(seq)")),
    ]
    return JSON.object(fields).encoded() + "\n"
}

func sendText(_ descriptor: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
}

/// One line from a blocking socket, without its newline; what came before the end when the peer leaves first.
func receiveLine(_ descriptor: Int32) -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while recv(descriptor, &byte, 1, 0) == 1, byte != 0x0A { bytes.append(byte) }
    return String(decoding: bytes, as: UTF8.self)
}
