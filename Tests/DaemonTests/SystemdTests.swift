import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon against systemd's protocols: notify (path and abstract), watchdog, socket activation, SIGTERM.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SystemdTests {
    @Test(arguments: [NotifyListener.Form.path, .abstract])
    func readyStatusWatchdogAndStopping(form: NotifyListener.Form) throws {
        let listener = try NotifyListener(form: form)
        let daemon = try ScanDaemon(api: nil, notify: listener, watchdog: .milliseconds(600))
        defer { daemon.removeDirectory() }
        let untilReady = try #require(listener.receive(until: "READY", timeout: .seconds(20)))
        #expect(untilReady.last?.assignments["READY"] == "1")
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "READY=1 comes once the socket listens")
        var status: String?
        var watchdogs = 0
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline, let message = listener.receive(timeout: .seconds(1)) {
            if let text = message.assignments["STATUS"] { status = text }
            if message.assignments["WATCHDOG"] == "1" { watchdogs += 1 }
        }
        #expect(status?.contains("scan") == true, "a readable STATUS= line: \(status ?? "none")")
        #expect(watchdogs >= 3, "WATCHDOG=1 every 300 ms (half of WATCHDOG_USEC)")

        daemon.process.signal(SIGTERM)
        #expect(listener.receive(until: "STOPPING", timeout: .seconds(10))?.last?.assignments["STOPPING"] == "1")
        #expect(daemon.process.waitForExit(timeout: .seconds(15)) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "SIGTERM removes the socket file")
    }

    /// `systemctl stop` or `reload` right after the start: a signal that arrives while the daemon is still setting up
    /// must be taken like any other, never end the process before the journal is closed and the socket removed.
    @Test(arguments: [[SIGTERM], [SIGHUP, SIGTERM], [SIGINT]])
    func aSignalTheMomentTheSocketAppearsStopsTheDaemonCleanly(signals: [Int32]) throws {
        for _ in 0..<12 {
            let daemon = try ScanDaemon(api: nil)
            defer { daemon.removeDirectory() }
            let deadline = ContinuousClock.now + .seconds(20)
            while access(daemon.socketPath, F_OK) != 0, ContinuousClock.now < deadline { usleep(200) }
            for number in signals { daemon.process.signal(number) }
            let status = daemon.process.waitForExit(timeout: .seconds(15))
            try #require(status == 0, "signals \(signals) at start ended the daemon with \(String(describing: status)): \(daemon.process.standardError)")
            #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        }
    }

    @Test func socketActivationServesThePassedDescriptor() throws {
        let listening = try ActivationSocket()
        let daemon = try ScanDaemon(api: nil, passing: listening)
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let line = try #require(try listening.connectAndReadLine(timeout: .seconds(20)))
        #expect(line.contains("\"type\":\"hello\""))
        #expect(line.contains("\"protocol\":1"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "no socket of its own under activation")
        #expect(daemon.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: listening.path), "the inherited socket file is systemd's, left in place")
    }
}
