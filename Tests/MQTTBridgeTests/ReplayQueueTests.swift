import BridgeTestSupport
import Foundation
import Glibc
@testable import MQTTBridge
import Testing
import TestSupport

/// Replay requests with bounds (issue 42 item 4): anyone who may publish on the request topic can ask, so a request
/// kept by the broker, a request for everything, and the same request again and again must not turn into work without end.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ReplayQueueTests {
    /// A retained `{"since":0}` republished the whole journal at every start and reconnect. The bridge ignores it (and
    /// asks an MQTT 5 broker not to send it), says so, and still answers a request published now.
    @Test func aRetainedRequestIsIgnoredAndALiveOneAnswered() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        try daemon.scanForeignCodes(10, tag: "retained")
        try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-r", "-t", "sealtrust/dock-7/replay", "-m", #"{"since":0}"#])
        let subscriber = try Subscriber(broker: broker)
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: try makeScratchDirectory("bridge-state"))
        try subscriber.waitForEvents(through: 20, timeout: .seconds(20))
        let answerTopic = "sealtrust/dock-7/replay/answer"
        try waitUntil("no answer to a live request: \(bridge.log)", timeout: .seconds(20)) {
            try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-t", "sealtrust/dock-7/replay", "-m", #"{"from":2,"to":2}"#])
            return subscriber.last(on: answerTopic) != nil
        }
        subscriber.readNew()
        let answers = subscriber.messages.filter { $0.topic == answerTopic }.map(\.payload)
        #expect(Set(answers) == [#"{"from":2,"to":2,"sent":1}"#], "\(answers)")
        // Seq 1 came once: live, and never again from the retained request.
        #expect(subscriber.eventSeqs.filter { $0 == 1 }.count == 1)
        // The MQTT 5 subscription asks for no retained message, so mosquitto sends none: nothing to ignore.
        #expect(!bridge.log.contains("a replay request was refused"), "\(bridge.log)")
        bridge.stop()
    }

    /// 64 queued `{"since":0}` meant ten minutes of repeats while real repairs were refused as busy. The same range
    /// joins the one that waits; what waits is bounded in events.
    @Test func theSameRangeJoinsTheOneThatWaitsAndWhatWaitsIsBoundedInEvents() {
        var queue = ReplayQueue()
        for _ in 0..<64 { #expect(queue.submit(payload: Array(#"{"since":0}"#.utf8)).refusal == nil) }
        #expect(queue.progress.waiting == 1)
        #expect(queue.submit(payload: Array(#"{"from":1,"to":100000}"#.utf8)).refusal == nil)
        #expect(queue.progress.waiting == 2)
        let busy = queue.submit(payload: Array(#"{"from":200001,"to":200001}"#.utf8))
        #expect(busy.refusal?.refusal == "busy: 200000 events are asked for already; ask again later")
        #expect(queue.submit(payload: Array(#"{"from":1,"to":100000}"#.utf8)) == .joined)
    }

    /// 935 warning lines in 40 s: one line per interval, the next saying how many were held back.
    @Test func aFloodOfWarningsIsOneLinePerIntervalWithACount() {
        var log = LimitedLog(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(log.admit("refused", at: start) == "refused")
        for second in 1...9 { #expect(log.admit("refused", at: start + .seconds(second)) == nil) }
        #expect(log.admit("refused", at: start + .seconds(10)) == "refused (and 9 more since the last one logged)")
        #expect(log.admit("refused", at: start + .seconds(30)) == "refused")
    }
}
