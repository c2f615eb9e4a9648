import BridgeTestSupport
import Foundation
import Glibc
@testable import MQTTBridge
import Testing
import TestSupport

/// `sealtrust-mqtt watch` against a hostile publisher: anyone who may publish on the broker can name any station and
/// claim any answer (issue 42).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WatchTests {
    /// A scan; `padding` in a member the watch's printed line leaves out, so that only what waits is large.
    private static func event(_ seq: Int, _ padding: String = "") -> String {
        #"{"type":"scan","seq":\#(seq),"at":"2026-12-07T18:00:00.000Z","scan_id":"s\#(seq)","raw":"FOREIGN","code":"foreign","padding":"\#(padding)"}"#
    }

    /// Station `evil` publishes seq 1 and 3, then answers that 1 to 2^63-1 are gone. That loop over 9.2e18 seqs held
    /// the stations' lock: the watch stopped printing for every station and ignored SIGTERM. Now a gone range counts
    /// only within what the watch asked (2 to 2), and a stop is taken whatever a loop does.
    @Test func aGoneRangeOfEveryPossibleSeqNeitherHangsTheWatchNorSkipsWhatItHolds() throws {
        let broker = try MosquittoBroker()
        let watch = try WatchProcess(broker: broker)
        try waitUntil("the watch did not connect: \(watch.log)", timeout: .seconds(10)) { watch.log.contains("watching") }
        let publisher = try RawPublisher(broker: broker)
        try publisher.publish([("sealtrust/evil/event/scan", Self.event(1)), ("sealtrust/evil/event/scan", Self.event(3))])
        try waitUntil("the watch did not ask for seq 2: \(watch.log)", timeout: .seconds(10)) {
            watch.log.contains("station evil: events 2 to 2 missing; asking again")
        }
        try publisher.publish([("sealtrust/evil/replay/answer", #"{"from":2,"to":2,"sent":0,"gone":{"from":1,"to":9223372036854775807}}"#)])
        try publisher.publish([("sealtrust/good/event/scan", Self.event(1))])
        try waitUntil("the watch stopped writing: \(watch.log)", timeout: .seconds(10)) { watch.seqs(of: "good") == [1] }
        #expect(watch.lines(of: "evil").count == 3)
        #expect(watch.seqs(of: "evil") == [1, 3])
        #expect(watch.lines(of: "evil").dropFirst().first == #"{"type":"gone","from":2,"to":2}"#)
        let stoppedAt = ContinuousClock.now
        #expect(watch.stop() == 0)
        #expect(ContinuousClock.now - stoppedAt < .seconds(7))
    }

    /// What waits is dropped by its own keys, not by walking the range: 2^63 seqs are gone at once.
    @Test func aGoneRangeTouchesOnlyTheEventsThatWait() {
        var sequence = StationSequence(resumingAfter: 0)
        #expect(sequence.receive(seq: 1, line: "one") == [.event(seq: 1, line: "one")])
        #expect(sequence.receive(seq: 3, line: "three").isEmpty)
        let all = UInt64(Int64.max)
        #expect(sequence.gone(2...all) == [.gone(2...all)])
        #expect(sequence.missing == nil)
        #expect(sequence.receive(seq: 3, line: "three").isEmpty)
    }

    /// 3,000 events of 60 KB behind a gap took the watch from 12.6 to 190 MB, and any topic level makes a station. What
    /// waits is bounded in bytes for all stations together (32 MiB): past it the station gives up its first gap, said
    /// as gone, and writes what arrived. 96 MB behind one gap leave the watch under 64 MiB (46 MiB).
    @Test func whatWaitsBehindAGapIsBoundedInBytes() throws {
        let broker = try MosquittoBroker()
        let watch = try WatchProcess(broker: broker)
        try waitUntil("the watch did not connect: \(watch.log)", timeout: .seconds(10)) { watch.log.contains("watching") }
        let publisher = try RawPublisher(broker: broker)
        let padding = String(repeating: "x", count: 60_000)
        try publisher.publish([("sealtrust/big/event/scan", Self.event(1))])
        try publisher.publish((3...1_602).map { ("sealtrust/big/event/scan", Self.event($0, padding)) })
        try waitUntil("the watch did not write past the gap: \(watch.log.suffix(500))", timeout: .seconds(60)) {
            watch.lastSeq(of: "big") == 1_602
        }
        let lines = watch.lines(of: "big")
        #expect(lines.count == 1_602)
        #expect(lines[1] == #"{"type":"gone","from":2,"to":2}"#)
        #expect(watch.seqs(of: "big") == [1] + Array(3...1_602))
        let peak = watch.peakResidentBytes
        print("watch behind a gap: 96 MB published, peak resident \(peak / 1_048_576) MiB")
        #expect(peak > 0 && peak < 64 << 20)
        #expect(watch.stop() == 0)
    }

    /// `x+y` and `x_y` both became `x_y` in topics and client ids: the two bridges threw each other off the broker, and the
    /// watch took one's events as the other's repeats. The topic level escapes, one to one.
    @Test func twoStationsWhoseNamesDifferOnlyByAnEscapedCharacterStayTwo() throws {
        #expect(Topics.level("x+y") == "x%2By")
        #expect(Topics.level("x_y") == "x_y")
        #expect(Topics.level("x%2By") == "x%252By")
        #expect(Topics.level("a/b#c\u{1}") == "a%2Fb%23c%01")
        #expect(Topics.level("") == "%")
        let broker = try MosquittoBroker()
        let watch = try WatchProcess(broker: broker)
        try waitUntil("the watch did not connect: \(watch.log)", timeout: .seconds(10)) { watch.log.contains("watching") }
        let subscriber = try Subscriber(broker: broker)
        let stations = try ["x+y", "x_y"].map { try StationDaemon(station: $0) }
        let bridges = try stations.map { try BridgeProcess(daemon: $0, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state")) }
        try Burst(stations, codes: 20, tag: "twin").wait()
        try watch.waitForEvents(of: "x%2By", through: 40, timeout: .seconds(20))
        try watch.waitForEvents(of: "x_y", through: 40, timeout: .seconds(20))
        #expect(watch.seqs(of: "x%2By") == Array(1...40))
        #expect(watch.seqs(of: "x_y") == Array(1...40))
        subscriber.readNew()
        #expect(subscriber.messages.filter { $0.topic.hasPrefix("sealtrust/x%2By/event/") }.count >= 40)
        for bridge in bridges {
            #expect(!bridge.log.contains("lost the connection"), "\(bridge.log)")
            bridge.stop()
        }
    }
}
