import BridgeTestSupport
import Foundation
import Glibc
import ScanJournal
import TestSupport
import Testing

/// QoS 1 hands an event to the broker, not to its consumers, and a broker may lose what it acknowledged. The journal
/// keeps the truth: `watch` sees a gap in a station's seqs, asks on `<prefix>/<station>/replay`, and the bridge
/// publishes the events again from the journal, or answers that they are gone.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GapRepairTests {
    /// A broker at fault: a proxy acknowledges events 5, 17 and 40 and drops them. 40 is the last of the burst, so
    /// no later event shows its gap: the bridge's `acked_seq` in its status does.
    @Test func eventsABrokerAcknowledgedAndDroppedAreAskedAgainAndReachTheConsumerInOrder() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon(station: "dock-7")
        let proxy = try BrokerProxy(upstreamPort: broker.port)
        proxy.dropOnce([5, 17, 40])
        let watch = try WatchProcess(broker: broker)
        try waitUntil("the watch did not connect: \(watch.log)", timeout: .seconds(10)) { watch.log.contains("watching") }
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", proxy.url, "--credentials", broker.credentialsFile,
                                                   "--state-dir", state], notify: status.listener)
        try daemon.scanForeignCodes(20, tag: "dropped")
        try watch.waitForEvents(of: "dock-7", through: 40, timeout: .seconds(40))
        #expect(watch.seqs(of: "dock-7") == Array(1...40))
        #expect(proxy.dropped == [5, 17, 40])
        #expect(watch.log.contains("station dock-7: events 5 to 5 missing; asking again"), "\(watch.log)")
        try status.waitForAny("replays answered", timeout: .seconds(10))
        #expect(watch.printed.contains("dock-7  "))
        bridge.stop()
        #expect(watch.stop() == 0)
        #expect(watch.log.contains("40 events in order"), "\(watch.log)")
    }

    /// Ten stations, one broker stopped mid-burst and started again: what the broker lost and what the consumer missed
    /// while it was away are asked again, and every station's file ends with every seq, once, in order.
    @Test func tenStationsLoseNothingThroughABrokerRestartMidBurst() throws {
        let broker = try MosquittoBroker()
        let stations = try (0..<10).map { try StationDaemon(station: "s\($0)") }
        let watch = try WatchProcess(broker: broker)
        try waitUntil("the watch did not connect: \(watch.log)", timeout: .seconds(10)) { watch.log.contains("watching") }
        let statuses = try stations.map { _ in try StatusRecorder() }
        let bridges = try zip(stations, statuses).map { daemon, status in
            try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"), notify: status.listener)
        }
        let burst = Burst(stations, codes: 150, tag: "fleet")
        try waitUntil("the burst did not reach the consumer", timeout: .seconds(60)) { watch.seqs(of: "s0").count >= 40 }
        broker.stop()
        for status in statuses { try status.waitFor("degraded: broker", timeout: .seconds(20)) }
        try broker.start()
        try burst.wait()
        for daemon in stations { try watch.waitForEvents(of: daemon.station, through: 300, timeout: .seconds(60)) }
        for daemon in stations { #expect(watch.seqs(of: daemon.station) == Array(1...300), "station \(daemon.station)") }
        print("fleet of 10 through a broker restart: \(watch.log.components(separatedBy: "missing; asking again").count - 1) replay requests")
        for bridge in bridges { bridge.stop() }
        watch.stop()
    }

    /// Retention removed seqs 1 to several thousand: a request for 1 to 5 is answered with what is gone, never silence.
    @Test func aReplayOfARangeRetentionRemovedIsAnsweredWithWhatIsGone() throws {
        let broker = try MosquittoBroker()
        let first = try StationDaemon(station: "dock-7", extra: ["--journal-max-bytes", "1048576"])
        #expect(first.stop() == 0)
        let journal = try Journal(path: first.directory + "/journal", maxBytes: 1 << 20)
        let padding = String(repeating: "x", count: 400)
        for index in 0..<6_000 {
            _ = try journal.append(type: "scan", fields: [("source", "manual"), ("raw", .string("FOREIGN-\(padding)-\(index)")), ("code", "foreign")])
        }
        journal.close()
        let daemon = try StationDaemon(station: "dock-7", directory: first.directory, extra: ["--journal-max-bytes", "1048576"])
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        try "6000\n".write(toFile: state + "/acked-seq", atomically: true, encoding: .utf8)
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state)
        let answerTopic = "sealtrust/dock-7/replay/answer"
        // Asked until the bridge is subscribed; each request is answered.
        try waitUntil("no answer to a replay request: \(bridge.log)", timeout: .seconds(20)) {
            try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-t", "sealtrust/dock-7/replay", "-m", #"{"from":1,"to":5}"#])
            return subscriber.last(on: answerTopic) != nil
        }
        #expect(subscriber.last(on: answerTopic) == #"{"from":1,"to":5,"sent":0,"gone":{"from":1,"to":5}}"#)
        #expect(!subscriber.messages.contains { $0.topic.contains("/event/") })

        // A request the bridge cannot read is answered too, with why.
        try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-t", "sealtrust/dock-7/replay", "-m", #"{"since":"x"}"#])
        // (The answers to the repeated requests above may still come: each request gets its own.)
        try waitUntil("no answer to an unreadable request: \(bridge.log)", timeout: .seconds(10)) {
            subscriber.readNew()
            return subscriber.messages.contains { $0.topic == answerTopic && $0.payload == #"{"error":"since must be a seq, an integer from 0"}"# }
        }
        bridge.stop()
        withExtendedLifetime(first) {}  // its folder holds the second daemon's journal
    }
}
