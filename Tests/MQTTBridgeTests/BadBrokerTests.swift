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
        for item in cases {
            try waitUntil("\(item.name): no log line with '\(item.expected)': \(item.bridge.log)", timeout: .seconds(20)) {
                item.bridge.log.contains(item.expected)
            }
            try item.status.waitForAny("degraded: broker", timeout: .seconds(5))
            try item.status.waitForAny(item.expected, timeout: .seconds(5))
            #expect(!item.bridge.log.contains(MosquittoBroker.password))
        }
        let refusal = cases[0].bridge.log.lowercased()
        #expect(refusal.contains("not authori") || refusal.contains("bad user name or password"), "\(refusal)")

        // Five seconds more of each: a busy loop would burn seconds of CPU, and the daemon still answers at once.
        let before = cases.map(\.bridge.cpuSeconds)
        let connectionsBefore = flaky.acceptedConnections
        let started = ContinuousClock.now
        try daemon.scanForeignCodes(100, tag: "meanwhile")
        #expect(ContinuousClock.now - started < .seconds(2))
        Thread.sleep(forTimeInterval: 5)  // the interval the CPU time is measured over, not a wait for an event
        for (item, cpu) in zip(cases, before) {
            let used = item.bridge.cpuSeconds - cpu
            #expect(used < 0.5, "\(item.name): \(used) s of CPU in 5 s")
            #expect(item.bridge.residentBytes < 64 * 1_048_576)
        }
        #expect(flaky.acceptedConnections - connectionsBefore <= 5)
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
