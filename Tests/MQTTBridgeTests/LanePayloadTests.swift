import BridgeTestSupport
import Foundation
import TestSupport
import Testing

/// Lanes through the broker (issue 44): a consumer of a dock's lanes tells them apart by each payload's `lane`,
/// the socket's JSON unchanged, and reads each lane's counts in the retained status.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LanePayloadTests {
    @Test func everyEventOfALanesSourceCarriesItsLaneOnTheBroker() throws {
        let broker = try MosquittoBroker()
        // `manual` in a lane: the client's `verify` scans are that lane's.
        let daemon = try StationDaemon(extra: ["--lane", "desk=manual"])
        let subscriber = try Subscriber(broker: broker)
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"))
        defer { bridge.stop() }
        try daemon.scanForeignCodes(3, tag: "lane")
        try subscriber.waitForEvents(through: 6, timeout: .seconds(20))
        let journal = try journaledLines(daemon, through: 6)
        let events = subscriber.messages.filter { $0.topic.contains("/event/") }
        #expect(events.count >= 6)
        for message in events {
            #expect(message.payload.contains(#""medium":"manual","lane":"desk""#), "\(message.payload)")
            #expect(message.payload == message.seq.flatMap { journal[$0] }, "the socket's line, unchanged")
        }
        try waitUntil("no status with the lane's counts", timeout: .seconds(15)) {
            subscriber.readNew()
            return subscriber.last(on: "sealtrust/dock-7/status")?.contains(#""lanes":[{"name":"desk","sources":["manual"],"counters":{"scans":3"#) == true
        }
    }
}
