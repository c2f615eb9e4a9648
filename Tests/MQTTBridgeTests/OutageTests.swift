import BridgeTestSupport
import Foundation
import Glibc
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// A broker away for 30 s takes time: the first test runs 30 to 45 s.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct OutageTests {
    @Test func aBrokerStoppedFor30SecondsDuringABurstOf2000ScansLosesNothing() async throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state, notify: status.listener)

        let burst = Burst([daemon], codes: 2_000, tag: "burst")
        try subscriber.waitForEvents(through: 400, timeout: .seconds(30))
        broker.stop()
        let stoppedAt = ContinuousClock.now
        // The station is unaffected: the burst ends while the broker is away, and a client's verify still answers.
        try burst.wait()
        #expect(ContinuousClock.now - stoppedAt < .seconds(30))
        let verifyStarted = ContinuousClock.now
        try daemon.scanForeignCodes(1, tag: "during")
        #expect(ContinuousClock.now - verifyStarted < .seconds(1))
        try status.waitFor("degraded: broker", timeout: .seconds(10))
        let remaining = Duration.seconds(30) - (ContinuousClock.now - stoppedAt)
        if remaining > .zero { try await Task.sleep(for: remaining) }
        try broker.start()
        let backAt = ContinuousClock.now

        try subscriber.waitForEvents(through: 4_002, timeout: .seconds(90))
        // The bridge tries again at least every 12 s (10 s and its jitter), then drains about 3,600 events.
        #expect(ContinuousClock.now - backAt < .seconds(25), "the station's events came long after the broker was back")
        let counts = checkOrderAndGaps(subscriber.eventSeqs, through: 4_002)
        print("broker outage: \(counts.repeats) repeats in \(counts.runs) run(s) after the reconnect")
        #expect(counts.runs <= 1)
        #expect(counts.repeats <= 1_000)
        #expect(bridge.log.contains("connected to \(broker.url)"))
        bridge.stop()
    }

    /// Issue 40: ten stations through a broker stopped mid-burst and started again, and a plain persistent QoS 1
    /// subscriber (what a back office runs: no gap repair) has every event of every station.
    @Test func tenStationsThroughABrokerRestartMidBurstLoseNothingAtAPlainPersistentSubscriber() throws {
        let broker = try MosquittoBroker()
        let stations = try (0..<10).map { try StationDaemon(station: "s\($0)") }
        let subscriber = try Subscriber(broker: broker, topic: "sealtrust/+/event/#")
        let statuses = try stations.map { _ in try StatusRecorder() }
        let bridges = try zip(stations, statuses).map { daemon, status in
            try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"), notify: status.listener)
        }
        let burst = Burst(stations, codes: 150, tag: "fleet")
        try waitUntil("the burst did not reach the subscriber", timeout: .seconds(60)) {
            subscriber.readNew()
            return subscriber.messages.count >= 100
        }
        broker.stop()
        for status in statuses { try status.waitFor("degraded: broker", timeout: .seconds(20)) }
        try broker.start()
        try burst.wait()
        func seqs(_ station: String) -> Set<UInt64> {
            Set(subscriber.messages.filter { $0.topic.hasPrefix("sealtrust/\(station)/event/") }.compactMap(\.seq))
        }
        try waitUntil("a station's events are missing at the subscriber", timeout: .seconds(60)) {
            subscriber.readNew()
            return stations.allSatisfy { seqs($0.station).count >= 300 }
        }
        for daemon in stations {
            #expect(seqs(daemon.station) == Set(1...300), "station \(daemon.station)")
        }
        for bridge in bridges { bridge.stop() }
    }

    /// The kill comes at a point the test holds: a proxy in front of the broker stops acknowledging after seq 3,000,
    /// so the drain stops there and the bridge saves 3,000, however fast the machine (the drain of 10,000 events once
    /// ended before a kill that waited for it).
    @Test func aBridgeKilledWhileDrainingA10000EventBacklogResumesWithNoGap() throws {
        let broker = try MosquittoBroker()
        // The backlog is written straight into the journal of a stopped daemon (fast), then served by the real
        // daemon again.
        let stopped = try StationDaemon()
        #expect(stopped.stop() == 0)
        try journalForeignScans(5_000, tag: "backlog", in: stopped.directory)
        let daemon = try StationDaemon(directory: stopped.directory)
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let proxy = try BrokerProxy(upstreamPort: broker.port)
        proxy.holdAcknowledgements(above: 3_000)
        let first = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", proxy.url, "--credentials", broker.credentialsFile,
                                                  "--state-dir", state])
        try waitUntil("the bridge did not save seq 3000: \(first.log)", timeout: .seconds(60)) { BridgeProcess.savedSeq(in: state) == 3_000 }
        first.kill9()
        try subscriber.waitForEvents(through: 3_000, timeout: .seconds(10))
        #expect(subscriber.highestSeq == 3_000, "an event the broker never acknowledged reached the subscriber")
        let second = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state)
        try subscriber.waitForEvents(through: 10_000, timeout: .seconds(60))
        let counts = checkOrderAndGaps(subscriber.eventSeqs, through: 10_000)
        #expect(counts.repeats == 0)
        #expect(second.log.contains("from seq 3001"), "\(second.log)")
        second.stop()
        withExtendedLifetime(stopped) {}  // its folder holds the served journal
    }

    /// The broker goes away with the end of a burst unacknowledged, and no scan follows: the bridge publishes the rest
    /// as soon as a session is back (it once waited for the daemon's next event, which after a burst may be hours
    /// away: 70 of 100 stations of `make bench-fleet` stopped there).
    @Test func aBrokerLostAfterTheLastEventOfABurstGetsTheRestWithoutANewScan() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let proxy = try BrokerProxy(upstreamPort: broker.port)
        proxy.holdAcknowledgements(above: 10)
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", proxy.url, "--credentials", broker.credentialsFile,
                                                   "--state-dir", state], notify: status.listener)
        try daemon.scanForeignCodes(20, tag: "burst")
        try waitUntil("seq 10 was not saved", timeout: .seconds(20)) { BridgeProcess.savedSeq(in: state) == 10 }
        // Events 11 to 40 are with the broker's connection, unacknowledged, when it goes.
        proxy.holdAcknowledgements(above: nil)
        proxy.disconnectAll()
        try status.waitForAny("degraded: broker", timeout: .seconds(10))
        try subscriber.waitForEvents(through: 40, timeout: .seconds(30))
        _ = checkOrderAndGaps(subscriber.eventSeqs, through: 40)
        #expect(bridge.log.contains("publishing again from seq 11"), "\(bridge.log)")
        bridge.stop()
    }

    @Test func afterAnOutageOf100000EventsAllArePublishedAndTheBridgeStaysSmall() throws {
        let broker = try MosquittoBroker()
        let first = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let bridge = try BridgeProcess(daemon: first, broker: broker, stateDirectory: state)
        try first.scanForeignCodes(5, tag: "before")
        try subscriber.waitForEvents(through: 10, timeout: .seconds(20))
        broker.stop()
        // 100,000 events while the broker is away, written straight into the daemon's journal while it is
        // stopped (fast), then served by the real daemon again.
        #expect(first.stop() == 0)
        try journalForeignScans(50_000, tag: "outage", in: first.directory)
        let second = try StationDaemon(directory: first.directory)
        let idle = bridge.residentBytes
        try broker.start()
        var peak = bridge.residentBytes
        try waitUntil("not all 100,010 events arrived", timeout: .seconds(150)) {
            peak = max(peak, bridge.residentBytes)
            subscriber.readNew()
            return subscriber.distinctEvents.count >= 100_010
        }
        _ = checkOrderAndGaps(subscriber.eventSeqs, through: 100_010)
        print("long outage: resident \(idle / 1_048_576) MiB before the drain, at most \(peak / 1_048_576) MiB during it")
        #expect(peak < 64 * 1_048_576)
        bridge.stop()
        second.stop()
        withExtendedLifetime(first) {}  // its folder holds the second daemon's journal
    }
}

/// Appends `count` foreign scans, each a `scan` and its `verdict` as a manual `verify` journals them, to the journal
/// in `directory` of a stopped daemon: `2 × count` events without a durable verify each.
private func journalForeignScans(_ count: Int, tag: String, in directory: String) throws {
    let journal = try Journal(path: directory + "/journal")
    defer { journal.close() }
    for index in 0..<2 * count {
        _ = try journal.append(type: index % 2 == 0 ? "scan" : "verdict",
                               fields: [("source", "manual"), ("raw", .string("FOREIGN-\(tag)-\(index / 2)")), ("code", "foreign")])
    }
}
