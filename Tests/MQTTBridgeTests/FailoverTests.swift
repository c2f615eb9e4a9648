import BridgeTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// A fleet on one broker stops when it does (issue 40 item 2): `--url` may repeat, and the bridge uses the first that
/// answers, moves to the next when its broker dies, and comes back to the first by itself.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FailoverTests {
    /// The first broker stopped mid-burst: the bridge is on the second at once (no back-off between brokers) and
    /// publishes there what the first left unacknowledged; with the first back, the bridge leaves the second cleanly
    /// (its retained status there says offline) and returns. Each seq reached a subscriber of one broker or the other.
    @Test func theBridgeMovesToTheNextBrokerAndComesBackToTheFirst() throws {
        let first = try MosquittoBroker()
        let second = try MosquittoBroker()
        let daemon = try StationDaemon()
        let onFirst = try Subscriber(broker: first)
        let onSecond = try Subscriber(broker: second)
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", first.url, "--url", second.url,
                                                   "--credentials", first.credentialsFile, "--state-dir", try makeScratchDirectory("bridge-state")],
                                       notify: status.listener)
        try status.waitForAny("\(first.url) connected", timeout: .seconds(10))
        let burst = Burst([daemon], codes: 500, tag: "failover")
        try waitUntil("the burst did not reach the first broker", timeout: .seconds(30)) {
            onFirst.readNew()
            return onFirst.distinctEvents.count >= 100
        }
        let stoppedAt = ContinuousClock.now
        first.stop()
        try status.waitFor("\(second.url) connected", timeout: .seconds(10))
        #expect(ContinuousClock.now - stoppedAt < .seconds(5), "the bridge waited before trying the second broker")
        try burst.wait()
        try waitUntil("the second broker did not get the rest", timeout: .seconds(30)) {
            onSecond.readNew()
            return onSecond.highestSeq == 1_000
        }

        try first.start()
        try status.waitFor("\(first.url) connected", timeout: .seconds(20))
        #expect(bridge.log.contains("left \(second.url), since \(first.url) answers again"), "\(bridge.log)")
        let everySeq = Set(UInt64(1)...1_000)
        try waitUntil("a seq reached neither broker's subscriber", timeout: .seconds(20)) {
            onFirst.readNew()
            onSecond.readNew()
            return onFirst.distinctEvents.union(onSecond.distinctEvents) == everySeq
        }
        #expect(onSecond.last(on: "sealtrust/dock-7/status") == #"{"state":"offline"}"#)
        try waitUntil("no online status on the first broker again", timeout: .seconds(10)) {
            onFirst.last(on: "sealtrust/dock-7/status")?.hasPrefix(#"{"state":"online""#) == true
        }
        bridge.stop()
    }

    @Test func theURLMayRepeatUpToEightBrokers() throws {
        let nine = (0..<9).flatMap { ["--url", "mqtt://broker\($0).example"] }
        let refused = try runCommand(builtProduct("sealtrust-mqtt"), nine)
        #expect(refused.status == 2)
        #expect(refused.output.contains("--url: at most 8 brokers"), "\(refused.output)")
    }
}
