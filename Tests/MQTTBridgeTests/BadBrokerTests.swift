import BridgeTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

@Suite(.serialized, .timeLimit(.minutes(1)))
struct BadBrokerTests {
    /// Four bridges against four bad brokers at once: each says what is wrong, none spins, the station scans on.
    @Test func badBrokersGiveAClearLineAndNoBusyLoop() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let silent = try FakeBroker(.neverAcknowledges)
        let flaky = try FakeBroker(.disconnectsEverySecond)
        func start(_ arguments: [String]) throws -> (BridgeProcess, StatusRecorder) {
            let status = try StatusRecorder()
            let state = try makeScratchDirectory("bridge-state")
            return (try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--state-dir", state] + arguments, notify: status.listener), status)
        }
        let certificates = broker.certificates
        let cases: [(name: String, bridge: BridgeProcess, status: StatusRecorder, expected: String)] = try [
            ("wrong password", broker.url, broker.wrongCredentialsFile, [], "refused the connection: "),
            ("unknown CA", broker.tlsURL, broker.credentialsFile,
             ["--ca", certificates.unknownCAFile, "--cert", certificates.clientCertificate, "--key", certificates.clientKey],
             "certificate verify failed"),
            ("never acknowledges", "mqtt://127.0.0.1:\(silent.port)", broker.credentialsFile, [], "sent no CONNACK within"),
            ("disconnects every second", "mqtt://127.0.0.1:\(flaky.port)", broker.credentialsFile, [], "lost the connection"),
        ].map { name, url, credentials, extra, expected in
            let (bridge, status) = try start(["--url", url, "--credentials", credentials] + extra)
            return (name, bridge, status, expected)
        }
        func waitForItsLine(_ item: (name: String, bridge: BridgeProcess, status: StatusRecorder, expected: String)) throws {
            try waitUntil("\(item.name): no log line with '\(item.expected)': \(item.bridge.log)", timeout: .seconds(20)) {
                item.bridge.log.contains(item.expected)
            }
            try item.status.waitForAny("degraded: broker", timeout: .seconds(5))
            try item.status.waitForAny(item.expected, timeout: .seconds(5))
        }
        // Three fail at once; the fourth waits 10 s for a CONNACK. That wait is (part of) the interval the CPU time of
        // each is measured over: a busy loop, while waiting for a CONNACK or to try again, would burn seconds of CPU,
        // and the daemon still answers at once.
        for item in cases where item.name != "never acknowledges" { try waitForItsLine(item) }
        let before = cases.map(\.bridge.cpuSeconds)
        let connectionsBefore = flaky.acceptedConnections
        let started = ContinuousClock.now
        try daemon.scanForeignCodes(100, tag: "meanwhile")
        #expect(ContinuousClock.now - started < .seconds(2))
        try waitForItsLine(cases[2])
        let measured = ContinuousClock.now - started
        if measured < .seconds(5) {
            Thread.sleep(forTimeInterval: (.seconds(5) - measured) / .seconds(1))  // the interval, not a wait for an event
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        for item in cases { #expect(!item.bridge.log.contains(MosquittoBroker.password)) }
        let refusal = cases[0].bridge.log.lowercased()
        #expect(refusal.contains("not authori") || refusal.contains("bad user name or password"), "\(refusal)")
        for (item, cpu) in zip(cases, before) {
            let used = item.bridge.cpuSeconds - cpu
            #expect(used < 0.1 * seconds, "\(item.name): \(used) s of CPU in \(seconds) s")
            #expect(item.bridge.residentBytes < 64 * 1_048_576)
        }
        // The flaky broker hangs up a second after each CONNACK: at most one connection a second.
        #expect(Double(flaky.acceptedConnections - connectionsBefore) <= seconds.rounded(.up))
    }

    /// A CA file named by mistake (a FIFO): libmosquitto opened it and waited for a writer, with nothing said, and the
    /// bridge did not stop on SIGTERM within 10 s. Now the bridge names it in the log and `STATUS=`, and stops at once.
    @Test func aTLSFileNamedByMistakeIsSaidAndTheBridgeStillStopsAtOnce() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let state = try makeScratchDirectory("bridge-state")
        let fifo = state + "/ca.pem"
        #expect(mkfifo(fifo, 0o600) == 0)
        let status = try StatusRecorder()
        let certificates = broker.certificates
        let bridge = try BridgeProcess(arguments: [
            "--socket", daemon.socketPath, "--state-dir", state, "--url", broker.tlsURL, "--credentials", broker.credentialsFile,
            "--ca", fifo, "--cert", certificates.clientCertificate, "--key", certificates.clientKey,
        ], notify: status.listener)
        let problem = "the CA file \(fifo) is not a regular file"
        try status.waitForAny(problem, timeout: .seconds(10))
        try waitUntil("no log line with '\(problem)': \(bridge.log)", timeout: .seconds(5)) { bridge.log.contains(problem) }
        let stopping = ContinuousClock.now
        #expect(bridge.stop() == 0)
        #expect(ContinuousClock.now - stopping < .seconds(5))
    }
}
