import Foundation
import Glibc
import JSONCore
import Testing
import TestSupport

/// What an operator sees of the token, of the status and of a reload.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct OperatorTests {
    @Test func aMissingTokenFileIsNamedAtStartAndShownInStatus() throws {
        let missing = "/nonexistent/sealtrust-token"
        let daemon = try ScanDaemon(api: nil, extra: ["--token-file", missing]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        try daemon.waitForLog("cannot read the token file \(missing)")
        let status = try status(of: daemon)
        #expect(status["token"]?.string == "unreadable")
        #expect(status["station"]?.string == "test-station")
    }

    @Test func statusSaysTokenNoneOrPresent() throws {
        let plain = try ScanDaemon(api: nil).waitUntilListening()
        defer { _ = plain.terminate(); plain.removeDirectory() }
        #expect(try status(of: plain)["token"]?.string == "none")

        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "secret-token\n".write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: nil, extra: ["--token-file", directory + "/token"]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        #expect(try status(of: daemon)["token"]?.string == "present")
        #expect(!daemon.process.standardError.contains("secret-token"), "the token is never logged")
    }

    /// `sealtrust-scanctl status` prints a fact a line, and none with nothing to say: a station without lanes (whose
    /// `status` has `"lanes":[]`) prints no empty `lanes:` line.
    @Test func scanctlStatusPrintsNoEmptyFactForAStationWithoutLanes() throws {
        let daemon = try ScanDaemon(api: nil).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        #expect(try status(of: daemon)["lanes"] == .array([]))
        let run = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "status"])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.contains("station: test-station"), "\(run.output)")
        #expect(!lines.contains { $0.hasPrefix("lanes") }, "\(run.output)")
        #expect(lines.allSatisfy { line in line.firstRange(of: ": ").map { !line[$0.upperBound...].isEmpty } ?? false }, "\(run.output)")
    }

    /// A passport read carries the station's token: its 401 says so, not "scan again". A chip's verify carries none
    /// (sealtrust-api.md), so its 401 says nothing of the token, which no operator could mend.
    @Test func refusedCredentialsAreSaidSoNotPleaseScanAgain() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/passport/", status: 401, body: #"{"detail":"INVALID_TOKEN"}"#, contentType: "application/json")
        try await api.fault(path: "/scans/verify", status: 401, body: #"{"error":"unauthorized"}"#, contentType: "application/json")
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let verdict = try client.verify("https://sealtrust.io/p/SN-00042", id: "refused").verdict
        #expect(verdict["outcome"]?.string == "failure")
        let message = verdict["message"]?.string ?? ""
        #expect(message.contains("credentials"), "\(message)")
        #expect(!message.contains("scan again"), "\(message)")

        let chip = try client.verify(try mintChipURL("authentic", counter: 41), id: "chip").verdict
        #expect(chip["outcome"]?.string == "failure")
        #expect(!(chip["message"]?.string ?? "").contains("credentials") && !(chip["message"]?.string ?? "").contains("token"),
                "a chip's verify sends no token: \(chip["message"]?.string ?? "")")

        let status = try status(of: daemon)
        let lastError = try #require(status["last_api_error"], "\(status.encoded())")
        #expect(lastError["kind"]?.string == "api" && lastError["at"]?.string?.hasSuffix("Z") == true, "\(lastError.encoded())")
        #expect(lastError["detail"]?.string?.contains("401") == true, "\(lastError.encoded())")
    }

    @Test func checkConfigSaysOkOrNamesTheProblemWithExitTwo() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = directory + "/good.conf"
        try "station = gate-3\nlang = fr\n".write(toFile: good, atomically: true, encoding: .utf8)
        let ok = try runProduct("sealtrust-scand", ["--config", good, "--check-config"])
        #expect(ok.status == 0 && ok.output == "configuration ok\n", "\(ok)")

        let bad = directory + "/bad.conf"
        try "station = gate-3\nlang = klingon\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try runProduct("sealtrust-scand", ["--config", bad, "--check-config"])
        #expect(refused.status == 2 && refused.errors.contains(bad) && refused.errors.contains("klingon"), "\(refused)")

        let noToken = try runProduct("sealtrust-scand", ["--config", good, "--token-file", directory + "/none", "--check-config"])
        #expect(noToken.status == 2 && noToken.errors.contains(directory + "/none"), "\(noToken)")
        // An empty token file is a fresh install's (no token yet; systemd's LoadCredential= needs the file): not a problem.
        let emptyToken = directory + "/empty-token"
        #expect(FileManager.default.createFile(atPath: emptyToken, contents: Data()))
        let withEmptyToken = try runProduct("sealtrust-scand", ["--config", good, "--token-file", emptyToken, "--check-config"])
        #expect(withEmptyToken.status == 0 && withEmptyToken.output == "configuration ok\n", "\(withEmptyToken)")

        // A FIFO with no writer is read as it is (empty), never waited on; a directory is refused.
        let fifo = directory + "/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        let fromFIFO = try runProduct("sealtrust-scand", ["--config", fifo, "--check-config"])
        #expect(fromFIFO.status == 0 && fromFIFO.output == "configuration ok\n", "\(fromFIFO)")
        let fromDirectory = try runProduct("sealtrust-scand", ["--config", directory, "--check-config"])
        #expect(fromDirectory.status == 2 && fromDirectory.errors.contains("\(directory): cannot read the configuration file: it is a directory"),
                "\(fromDirectory)")
    }

    /// A token file named by mistake (a device, a FIFO, a file far larger than a token, one that is not text) is refused
    /// with its reason, by `--check-config` as by the daemon; the check never waits on a FIFO, and the daemon serves.
    @Test func aTokenFileTheDaemonCannotUseIsRefusedWithItsReasonAndTheDaemonServes() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let large = directory + "/large"
        try String(repeating: "t", count: 65_537).write(toFile: large, atomically: true, encoding: .utf8)
        let binary = directory + "/binary"
        try Data([0x74, 0x6F, 0x6B, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
        for (path, reason) in [("/dev/zero", "is not a regular file"), (fifo, "is not a regular file"), (large, "is larger than 64 KiB"),
                               (binary, "is not UTF-8 text")] {
            let warning = "the token file \(path) \(reason)"
            let check = try runProduct("sealtrust-scand", ["--token-file", path, "--check-config"])
            #expect(check.status == 2 && check.errors.contains(warning), "\(check)")
            let daemon = try ScanDaemon(api: nil, extra: ["--token-file", path]).waitUntilListening()
            defer { _ = daemon.terminate(); daemon.removeDirectory() }
            try daemon.waitForLog(warning)
            #expect(try status(of: daemon)["token"]?.string == "unreadable")
        }
    }

    @Test func aReloadSendsReloadingThenReadyWithTheMonotonicTime() throws {
        let listener = try NotifyListener(form: .path)
        let daemon = try ScanDaemon(api: nil, notify: listener)
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        _ = try #require(listener.receive(until: "READY", timeout: .seconds(20)))
        daemon.process.signal(SIGHUP)
        let reloading = try #require(listener.receive(until: "RELOADING", timeout: .seconds(10))?.last)
        let started = try #require(reloading.assignments["MONOTONIC_USEC"].flatMap { UInt64($0) }, "\(reloading.assignments)")
        let ready = try #require(listener.receive(until: "READY", timeout: .seconds(10))?.last)
        let readyAt = try #require(ready.assignments["MONOTONIC_USEC"].flatMap { UInt64($0) }, "\(ready.assignments)")
        #expect(readyAt >= started)
    }

    /// A reload that points at a token file that cannot be read says so at once, naming it, and `status` shows it.
    @Test func aReloadChecksTheTokenFileItNames() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/scand.conf"
        try "token-file = \(directory)/token\n".write(toFile: config, atomically: true, encoding: .utf8)
        try "secret-token\n".write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        let listener = try NotifyListener(form: .path)
        let daemon = try ScanDaemon(api: nil, extra: ["--config", config], notify: listener)
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        _ = try #require(listener.receive(until: "READY", timeout: .seconds(20)))
        #expect(try status(of: daemon)["token"]?.string == "present")

        let moved = directory + "/moved-token"
        try "token-file = \(moved)\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
        _ = try #require(listener.receive(until: "RELOADING", timeout: .seconds(10)))
        _ = try #require(listener.receive(until: "READY", timeout: .seconds(10)))
        #expect(try status(of: daemon)["token"]?.string == "unreadable")
        // The warning was written before READY; this process reads the daemon's stderr on a thread of its own.
        let warning = "cannot read the token file \(moved)"
        try daemon.waitForLog(warning)
    }

    /// The package installs an empty token file: that is no token, said `none` with no warning, not a broken one.
    @Test func anEmptyTokenFileIsNoTokenWithoutAWarning() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let empty = directory + "/token"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data("\n".utf8)))
        let daemon = try ScanDaemon(api: nil, extra: ["--token-file", empty]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        #expect(try status(of: daemon)["token"]?.string == "none")
        // The token file is read before the socket listens: a warning would be in the log before this scan's line.
        let (client, _) = try daemon.connect()
        _ = try client.verify("WIFI:S:guest;;", id: "after-start")
        try daemon.waitForLog("from manual")
        #expect(!daemon.process.standardError.contains("token file"), "\(daemon.process.standardError)")
    }

    /// `--check-config` fails, naming it, on what would stop the start or fail every call.
    @Test func checkConfigFailsOnWhatTheStartRefusesAndSaysWhich() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let longSocket = directory + "/" + String(repeating: "s", count: 108 - directory.utf8.count) + ".sock"
        let empty = directory + "/empty.pem"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let cases: [(arguments: [String], problem: String)] = [
            (["--socket", longSocket], "the socket path \(longSocket) is \(longSocket.utf8.count) bytes, over the 107"),
            (["--socket", "/proc/x/y.sock"], "the socket's folder /proc/x cannot exist: no folder can be made in /proc"),
            (["--socket", "/etc/passwd/y.sock"], "the socket's folder /etc/passwd cannot exist"),
            (["--socket", directory + "/free.sock", "--api-ca", empty], "the CA bundle \(empty) holds no PEM certificate that parses"),
            (["--socket", directory + "/free.sock", "--api-ca", "/etc/passwd"], "the CA bundle /etc/passwd holds no PEM certificate"),
            (["--socket", directory + "/free.sock", "--station", "gate\u{1B}[2J"], "the station's name has a control character"),
            (["--socket", directory + "/free.sock", "--journal", empty + "/journal"], "the journal \(empty)/journal cannot exist: \(empty) is not a folder"),
            (["--socket", directory + "/free.sock", "--journal", "/proc/journal"], "the journal /proc/journal cannot exist: no folder can be made in /proc"),
        ]
        for (arguments, problem) in cases {
            let check = try runProduct("sealtrust-scand", arguments + ["--check-config"])
            #expect(check.status == 2 && check.errors.contains(problem), "\(arguments): \(check)")
        }
        let withNUL = directory + "/nul.conf"
        try "station = gate\u{0}3\n".write(toFile: withNUL, atomically: true, encoding: .utf8)
        let nul = try runProduct("sealtrust-scand", ["--config", withNUL, "--socket", directory + "/free.sock", "--journal", directory + "/journal",
                                                     "--check-config"])
        #expect(nul.status == 2 && nul.errors.contains("\(withNUL):1: bad value 'gate\\x003'"), "\(nul)")
        // A folder that does not exist yet but can be made passes: systemd makes /run/sealtrust-scand at start.
        let later = try runProduct("sealtrust-scand", ["--socket", directory + "/later/scand.sock", "--journal", directory + "/journal",
                                                       "--check-config"])
        #expect(later.status == 0 && later.output == "configuration ok\n", "\(later)")
    }

    /// A renamed station is restart-only (the bridges keep the name their hello gave them), and what needs a restart is
    /// compared with the running value: changed back, nothing is named.
    @Test func aReloadNamesWhatDiffersFromTheRunningValueAndKeepsTheStationsName() throws {
        let directory = try makeScratchDirectory()
        let socket = directory + "/scand.sock"
        let config = directory + "/scand.conf"
        func configure(station: String, socket: String) throws {
            try "station = \(station)\nsocket = \(socket)\nlang = fr\n".write(toFile: config, atomically: true, encoding: .utf8)
        }
        try configure(station: "gate-1", socket: socket)
        let listener = try NotifyListener(form: .path)
        let daemon = try ScanDaemon(api: nil, directory: directory, notify: listener, socketPath: socket, config: config)
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        _ = try #require(listener.receive(until: "READY", timeout: .seconds(20)))
        let reload = {
            daemon.process.signal(SIGHUP)
            _ = try #require(listener.receive(until: "RELOADING", timeout: .seconds(10)))
            _ = try #require(listener.receive(until: "READY", timeout: .seconds(10)))
        }

        try configure(station: "gate-2", socket: directory + "/other.sock")
        try reload()
        try daemon.waitForLog("a restart is needed to apply: socket, station")
        let (client, hello) = try daemon.connect()
        #expect(hello["station"]?.string == "gate-1")
        #expect(try status(of: daemon)["station"]?.string == "gate-1")

        try configure(station: "gate-1", socket: socket)
        try reload()
        // Every line of the reload is logged before READY; this scan's line comes after them.
        _ = try client.verify("WIFI:S:guest;;", id: "after-reload")
        try daemon.waitForLog("from manual")
        let warnings = daemon.process.standardError.components(separatedBy: "a restart is needed").count - 1
        #expect(warnings == 1, "\(daemon.process.standardError)")
        #expect(daemon.process.standardError.components(separatedBy: "configuration reloaded").count - 1 == 2)
    }

    private func status(of daemon: ScanDaemon) throws -> JSON {
        let (client, _) = try daemon.connect()
        try client.send(.object([("cmd", "status"), ("id", "s")]))
        return try #require(try client.next { $0["type"]?.string == "status" })
    }
}
