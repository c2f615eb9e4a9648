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
    private static func event(_ seq: Int, _ padding: String = "") -> String {
        #"{"type":"scan","seq":\#(seq),"at":"2026-12-07T18:00:00.000Z","scan_id":"s\#(seq)","raw":"FOREIGN\#(padding)","code":"foreign"}"#
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
}
