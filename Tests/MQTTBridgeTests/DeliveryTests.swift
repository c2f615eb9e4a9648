import BridgeTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's journaled lines by seq, read through a replay on the socket: what each MQTT payload must equal.
func journaledLines(_ daemon: StationDaemon, through last: UInt64) throws -> [UInt64: String] {
    let client = try LineClient(path: daemon.socketPath)
    _ = try client.readLine(timeout: .seconds(5))
    try client.send(#"{"cmd":"replay","since":0}"#)
    var lines: [UInt64: String] = [:]
    while lines.count < Int(last), let line = try client.readLine(timeout: .seconds(10)) {
        if let range = line.range(of: #""seq":"#), let seq = UInt64(line[range.upperBound...].prefix { $0.isNumber }) {
            lines[seq] = line
        }
    }
    return lines
}

/// Seqs received in order with no gap; returns how many repeats there were and in how many runs
/// (a run is a step back in seq: the re-sending that follows one reconnect).
func checkOrderAndGaps(_ seqs: [UInt64], through last: UInt64) -> (repeats: Int, runs: Int) {
    var highest: UInt64 = 0
    var repeats = 0
    var runs = 0
    var inRun = false
    for seq in seqs {
        if seq <= highest {
            repeats += 1
            if !inRun { runs += 1 }
            inRun = true
            continue
        }
        inRun = false
        #expect(seq == highest + 1, "gap: \(highest) then \(seq)")
        highest = seq
    }
    #expect(highest == last)
    return (repeats, runs)
}

@Suite(.serialized, .timeLimit(.minutes(3)))
struct DeliveryTests {
    @Test func everyEventArrivesOnItsTopicOverTLSWithTheSocketsJSONAndTheStatusFollowsTheBridge() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon(station: "dock-7")
        try daemon.scanForeignCodes(50, tag: "tls")
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let certificates = broker.certificates
        let bridge = try BridgeProcess(arguments: [
            "--socket", daemon.socketPath, "--url", broker.tlsURL, "--credentials", broker.credentialsFile,
            "--ca", certificates.caFile, "--cert", certificates.clientCertificate, "--key", certificates.clientKey,
            "--state-dir", state,
        ])
        try subscriber.waitForEvents(through: 100, timeout: .seconds(20))
        let journal = try journaledLines(daemon, through: 100)
        for message in subscriber.messages where message.topic.contains("/event/") {
            let seq = try #require(message.seq)
            #expect(message.payload == journal[seq], "seq \(seq) differs from the socket's line")
            let type = message.payload.contains(#""type":"verdict""#) ? "verdict" : "scan"
            #expect(message.topic == "sealtrust/dock-7/event/\(type)")
        }
        _ = checkOrderAndGaps(subscriber.eventSeqs, through: 100)

        let statusTopic = "sealtrust/dock-7/status"
        try waitUntil("no retained online status", timeout: .seconds(10)) {
            subscriber.last(on: statusTopic)?.hasPrefix(#"{"state":"online""#) == true
        }
        let retained = try runTool("/usr/bin/mosquitto_sub", broker.clientArguments + ["-t", statusTopic, "-C", "1", "-W", "5"])
        #expect(retained.hasPrefix(#"{"state":"online""#))
        #expect(retained.contains(#""station":"dock-7""#))
        try waitUntil("the acknowledged seq was not saved", timeout: .seconds(5)) { BridgeProcess.savedSeq(in: state) == 100 }

        bridge.kill9()
        try waitUntil("the will did not say offline", timeout: .seconds(10)) {
            subscriber.last(on: statusTopic) == #"{"state":"offline"}"#
        }
        #expect(!bridge.log.contains(MosquittoBroker.password))
    }

    @Test func aStopIsCleanAndARestartPublishesOnlyWhatIsNew() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let first = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state)
        try daemon.scanForeignCodes(10, tag: "one")
        try subscriber.waitForEvents(through: 20, timeout: .seconds(20))
        #expect(first.stop() == 0)
        #expect(BridgeProcess.savedSeq(in: state) == 20)
        #expect(subscriber.last(on: "sealtrust/dock-7/status") == #"{"state":"offline"}"#)
        try daemon.scanForeignCodes(10, tag: "two")
        let second = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state)
        try subscriber.waitForEvents(through: 40, timeout: .seconds(20))
        let counts = checkOrderAndGaps(subscriber.eventSeqs, through: 40)
        #expect(counts.repeats == 0)
        second.stop()
    }

    @Test func theDaemonRestartsWhileTheBridgeRunsAndNothingIsMissing() throws {
        let broker = try MosquittoBroker()
        let first = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let bridge = try BridgeProcess(daemon: first, broker: broker, stateDirectory: state)
        try first.scanForeignCodes(200, tag: "before")
        #expect(first.stop() == 0)
        let second = try StationDaemon(directory: first.directory)
        try second.scanForeignCodes(200, tag: "after")
        try subscriber.waitForEvents(through: 800, timeout: .seconds(30))
        let counts = checkOrderAndGaps(subscriber.eventSeqs, through: 800)
        #expect(counts.repeats == 0)
        #expect(bridge.log.contains("daemon at"))
        bridge.stop()
        second.stop()
        withExtendedLifetime(first) {}  // its folder holds the second daemon's journal
    }

    @Test func aBrokerThatSpeaksOnlyMQTT311GetsEveryEventIn311() throws {
        let broker = try FakeBroker(.speaksOnly311)
        let daemon = try StationDaemon()
        try daemon.scanForeignCodes(20, tag: "v311")
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", "mqtt://127.0.0.1:\(broker.port)",
                                                   "--state-dir", state], notify: status.listener)
        try status.waitFor("(MQTT 3.1.1)", timeout: .seconds(10))
        try waitUntil("the 3.1.1 broker did not acknowledge 40 events", timeout: .seconds(10)) {
            BridgeProcess.savedSeq(in: state) == 40
        }
        #expect(bridge.log.contains("does not speak MQTT 5; using MQTT 3.1.1"))
        #expect(broker.acknowledgedPublishes >= 40)
        bridge.stop()
    }
}
