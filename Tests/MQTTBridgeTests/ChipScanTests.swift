import BridgeTestSupport
import Foundation
import Glibc
import JSONCore
@testable import MQTTBridge
import ScanJournal
import StationWire
import Testing
import TestSupport

/// A chip URL is a one-time proof until the API has answered it: whoever reads the broker first could spend it, and the
/// buyer's genuine chip would then read as a replay. The bridge publishes a chip's `scan` only once that scan's first
/// verdict is journaled, in seq order; a `deferred` first verdict sends the scan without its URL.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ChipScanTests {
    /// The sandbox holds the chip's verify call. The bridge reads the scan and the events behind it (its STATUS= says
    /// so), yet the subscriber has nothing past the events before the chip; once the call is answered, everything comes
    /// in order, the scan with its URL byte for byte.
    @Test func aChipURLReachesNoSubscriberBeforeTheAPIAnsweredIt() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/scans/verify", count: 1, hold: true)
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon(api: api)
        let subscriber = try Subscriber(broker: broker)
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"),
                                       notify: status.listener)
        try daemon.scanForeignCodes(1, tag: "before")
        try subscriber.waitForEvents(through: 2, timeout: .seconds(20))

        let chipURL = try mintChipURL("authentic", counter: 4_242)
        let tap = try LineClient(path: daemon.socketPath)
        _ = try tap.readLine(timeout: .seconds(5))
        try tap.send(JSON.object([("cmd", "verify"), ("id", "chip"), ("raw", .string(chipURL))]).encoded())
        try waitUntil("the daemon did not journal the chip's scan", timeout: .seconds(10)) { (try? daemon.lastSeq()) == 3 }
        // Journaled behind the held call: seqs 4 to 7.
        try daemon.scanForeignCodes(2, tag: "behind")
        // The bridge has read seq 7 and acknowledged nothing past 2 (or, without the hold, published the URL).
        try waitUntil("the bridge did not read the events behind the chip; its last STATUS= '\(status.last)'", timeout: .seconds(10)) {
            subscriber.readNew()
            return status.last.contains("acked seq 2, lag 5") || subscriber.highestSeq > 2
        }
        #expect(!subscriber.messages.contains { $0.payload.contains(chipURL) }, "a chip URL reached the broker before its verdict")
        #expect(subscriber.highestSeq == 2)

        try await api.release()
        try subscriber.waitForEvents(through: 8, timeout: .seconds(20))
        let counts = checkOrderAndGaps(subscriber.eventSeqs, through: 8)
        #expect(counts.repeats == 0)
        let journal = try journaledLines(daemon, through: 8)
        let scan = try #require(subscriber.messages.first { $0.seq == 3 })
        #expect(scan.payload == journal[3])
        #expect(scan.payload.contains(chipURL))
        let verdict = try JSON.parse(try #require(subscriber.messages.first { $0.seq == 8 }).payload)
        #expect(verdict["type"]?.stringValue == "verdict" && verdict["outcome"]?.stringValue == "authentic")
        bridge.stop()
    }

    /// A first verdict `deferred` (the daemon's `on-api-outage defer`) leaves the proof unanswered: the scan goes out with
    /// `raw` left out and `"raw_withheld":true`, the late verdict in its turn; a replay of the scan alone (its verdict
    /// past the range) sends it the same way.
    @Test func aChipScanDeferredAtFirstGoesOutWithoutItsURLLiveAndReplayed() throws {
        let broker = try MosquittoBroker()
        let first = try StationDaemon()
        #expect(first.stop() == 0)
        let url = "https://sealtrust.io/c/deferred-proof?e=ABCDEF0123456789&m=0011223344556677"
        let journal = try Journal(path: first.directory + "/journal")
        _ = try journal.append(type: "scan", fields: [("scan_id", "scan-deferred"), ("source", "manual"), ("medium", "manual"),
                                                      ("raw", .string(url)), ("code", "chip"), ("proves", "presence")])
        _ = try journal.append(type: "verdict", fields: [("scan_id", "scan-deferred"), ("source", "manual"), ("medium", "manual"),
                                                         ("outcome", "deferred"), ("message", "Checked once the network is back.")])
        _ = try journal.append(type: "verdict", fields: [("scan_id", "scan-deferred"), ("source", "manual"), ("medium", "manual"),
                                                         ("outcome", "authentic"), ("late", true), ("deferred_seq", 2),
                                                         ("message", "Authentic product.")])
        journal.close()
        let daemon = try StationDaemon(directory: first.directory)
        let subscriber = try Subscriber(broker: broker)
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"))
        try subscriber.waitForEvents(through: 3, timeout: .seconds(20))
        let scan = try JSON.parse(try #require(subscriber.messages.first { $0.seq == 1 }).payload)
        #expect(scan["raw"] == nil)
        #expect(scan["raw_withheld"] == .bool(true))
        #expect(scan["scan_id"]?.stringValue == "scan-deferred" && scan["code"]?.stringValue == "chip")
        #expect(!subscriber.messages.contains { $0.payload.contains("deferred-proof") })
        _ = checkOrderAndGaps(subscriber.eventSeqs, through: 3)

        try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-t", "sealtrust/dock-7/replay", "-m", #"{"from":1,"to":1}"#])
        try waitUntil("no replay answer", timeout: .seconds(10)) {
            subscriber.last(on: "sealtrust/dock-7/replay/answer") != nil
        }
        #expect(subscriber.last(on: "sealtrust/dock-7/replay/answer") == #"{"from":1,"to":1,"sent":1}"#)
        let again = subscriber.messages.filter { $0.seq == 1 }
        #expect(again.count == 2)
        #expect(again.allSatisfy { $0.payload == again[0].payload && !$0.payload.contains("deferred-proof") })
        bridge.stop()
        daemon.stop()
        withExtendedLifetime(first) {}  // its folder holds the second daemon's journal
    }

    // MARK: The hold's own rules

    private static func chipScan(_ id: String, seq: UInt64, at: String = "2026-12-07T18:00:00.000Z") -> Event {
        Event([("type", "scan"), ("at", .string(at)), ("scan_id", .string(id)), ("raw", "https://sealtrust.io/c/x?e=1"), ("code", "chip")], seq: seq)
    }

    private static func verdict(_ id: String, seq: UInt64, outcome: String = "authentic") -> Event {
        Event([("type", "verdict"), ("scan_id", .string(id)), ("outcome", .string(outcome))], seq: seq)
    }

    private static func seqs(_ releases: [ChipScanHold.Release]) -> [UInt64] {
        releases.map { release in
            switch release {
            case .event(let seq, _, _): seq
            case .lost(let range): range.upperBound
            }
        }
    }

    private static let now = EventTime.milliseconds("2026-12-07T18:00:10.000Z")! / 1_000

    @Test func eventsBehindAHeldScanWaitAndGoOutInOrderWithTheVerdict() throws {
        var hold = ChipScanHold()
        #expect(hold.take(Self.chipScan("a", seq: 1), seq: 1, now: Self.now).isEmpty)
        #expect(hold.take(Self.chipScan("b", seq: 2), seq: 2, now: Self.now).isEmpty)
        #expect(hold.take(lost: 3...4, now: Self.now).isEmpty)
        // b's verdict first: a still holds everything.
        #expect(hold.take(Self.verdict("b", seq: 5), seq: 5, now: Self.now).isEmpty)
        let released = hold.take(Self.verdict("a", seq: 6), seq: 6, now: Self.now)
        #expect(Self.seqs(released) == [1, 2, 4, 5, 6])
        guard case .event(_, _, let line) = released[0] else { Issue.record("not an event"); return }
        #expect(line.contains(#""raw":"#))
        #expect(hold.isEmpty && hold.deadline == nil)
    }

    @Test func aScanThatCanWaitNoLongerGoesWithoutItsURL() throws {
        var hold = ChipScanHold()
        // Read 330 s ago or more: its call ended long ago, without a verdict.
        let old = hold.take(Self.chipScan("old", seq: 1, at: "2026-12-07T17:54:40.000Z"), seq: 1, now: Self.now)
        #expect(Self.seqs(old) == [1])
        guard case .event(_, _, let line) = old[0], let json = try? JSON.parse(line) else { Issue.record("not an event"); return }
        #expect(json["raw"] == nil && json["raw_withheld"] == .bool(true))

        // Held until its deadline, then released without its URL; its late verdict passes as any event.
        #expect(hold.take(Self.chipScan("slow", seq: 2), seq: 2, now: Self.now).isEmpty)
        #expect(hold.deadline == EventTime.milliseconds("2026-12-07T18:05:30.000Z")! / 1_000)
        #expect(hold.release(now: Self.now + 100).isEmpty)
        let late = hold.release(now: hold.deadline!)
        guard case .event(2, _, let withheld)? = late.first else { Issue.record("not released"); return }
        #expect(!withheld.contains("sealtrust.io/c/") && withheld.contains(#""raw_withheld":true"#))
        #expect(Self.seqs(hold.take(Self.verdict("slow", seq: 3), seq: 3, now: Self.now)) == [3])

        // More than 1 MiB behind a held scan: it goes without its URL, the rest with it.
        #expect(hold.take(Self.chipScan("busy", seq: 4), seq: 4, now: Self.now).isEmpty)
        var released: [ChipScanHold.Release] = []
        var seq: UInt64 = 5
        while released.isEmpty {
            let big = Event([("type", "read_error"), ("detail", .string(String(repeating: "x", count: 60_000)))], seq: seq)
            released = hold.take(big, seq: seq, now: Self.now)
            seq += 1
        }
        #expect(Self.seqs(released) == Array(4..<seq))
        #expect(seq - 5 == UInt64((1 << 20) / 60_000 + 1))
    }

    @Test func aChipScanWithNoScanIDOrARepeatedOneNeverCarriesItsURL() throws {
        var hold = ChipScanHold()
        let noID = Event([("type", "scan"), ("raw", "https://sealtrust.io/c/x?e=1"), ("code", "chip")], seq: 1)
        let out = hold.take(noID, seq: 1, now: Self.now)
        guard case .event(1, _, let line)? = out.first else { Issue.record("not released"); return }
        #expect(!line.contains("sealtrust.io/c/"))
        #expect(hold.take(Self.chipScan("same", seq: 2), seq: 2, now: Self.now).isEmpty)
        #expect(hold.take(Self.chipScan("same", seq: 3), seq: 3, now: Self.now).isEmpty)
        let both = hold.take(Self.verdict("same", seq: 4), seq: 4, now: Self.now)
        guard both.count == 3, case .event(_, _, let second) = both[1] else { Issue.record("not released"); return }
        #expect(!second.contains("sealtrust.io/c/"))
    }

    @Test func aFeedFollowedAgainFromAnEarlierSeqStartsTheHoldAfresh() throws {
        var hold = ChipScanHold()
        #expect(hold.take(Self.chipScan("a", seq: 5), seq: 5, now: Self.now).isEmpty)
        #expect(hold.take(Self.verdict("x", seq: 6), seq: 6, now: Self.now).isEmpty)
        // The feed restarts from seq 3: what was held comes again.
        #expect(Self.seqs(hold.take(Self.verdict("y", seq: 4), seq: 4, now: Self.now)) == [4])
        #expect(hold.take(Self.chipScan("a", seq: 5), seq: 5, now: Self.now).isEmpty)
        #expect(Self.seqs(hold.take(Self.verdict("a", seq: 6), seq: 6, now: Self.now)) == [5, 6])
    }
}

/// An event as the daemon writes it: `type` and `seq` first.
private struct Event {
    let json: JSON
    var line: String { json.encoded() }

    init(_ fields: [(String, JSON)], seq: UInt64) {
        json = .object([fields[0], ("seq", .int(Int64(seq)))] + fields.dropFirst())
    }
}

extension ChipScanHold {
    fileprivate mutating func take(_ event: Event, seq: UInt64, now: Int64) -> [Release] {
        take(line: event.line, json: event.json, seq: seq, now: now)
    }
}
