import BridgeTestSupport
import Foundation
import Glibc
@testable import MQTTBridge
import Testing
import TestSupport

/// The acknowledged seq moves only over PUBACKs of this session's own messages: a scripted broker that answers for
/// packet ids it never received (ids of an earlier session, or ahead) and out of order never moves it past an event it
/// did not acknowledge.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AcknowledgementTests {
    /// The acknowledged seqs a bridge said in STATUS=, in order.
    private static func acknowledgedSeqs(_ status: StatusRecorder) -> [UInt64] {
        status.all.compactMap { line in
            line.range(of: "acked seq ").flatMap { UInt64(line[$0.upperBound...].prefix { $0.isNumber }) }
        }
    }

    /// Connection 1 takes seqs 1 to 5 and acknowledges 1 and 2, then hangs up. Connection 2 allows 5 messages in flight,
    /// takes seqs 3 to 7 again, then answers PUBACKs for the 10 packet ids after them, which it never received, and for
    /// the 5 it received, last first. Before the fix libmosquitto held seqs 8 and on, unsent, past the broker's receive
    /// maximum, and took those PUBACKs as theirs: the bridge counted 17 acknowledged.
    @Test func pubacksForPacketIDsTheBrokerNeverReceivedMoveNothing() throws {
        let daemon = try StationDaemon()
        try daemon.scanForeignCodes(20, tag: "acks")
        let broker = try ScriptedBroker(receiveMaximum: 5, scripts: [
            .acknowledgeFirstThenHangUp(count: 5, acknowledged: 2),
            .acknowledgeUnreceivedThenOutOfOrder(count: 5, never: 10),
            .hold,
        ])
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", broker.url, "--state-dir", state],
                                       notify: status.listener)
        try waitUntil("the second connection did not get 5 events: \(broker.received) \(bridge.log)", timeout: .seconds(20)) {
            broker.received(on: 1).count >= 5
        }
        #expect(broker.received(on: 0).map(\.seq) == Array(1...5))
        #expect(broker.received(on: 1).prefix(5).map(\.seq) == Array(3...7))
        try waitUntil("the bridge never said acked seq 7: \(status.all)", timeout: .seconds(10)) {
            Self.acknowledgedSeqs(status).contains { $0 >= 7 }
        }
        // The broker took more since (room was made), and acknowledged none of it.
        try waitUntil("the bridge sent nothing after seq 7", timeout: .seconds(10)) { broker.received(on: 1).count > 5 }
        try waitUntil("no saved seq", timeout: .seconds(5)) { (BridgeProcess.savedSeq(in: state) ?? 0) >= 7 }
        #expect(BridgeProcess.savedSeq(in: state) == 7)
        #expect(Self.acknowledgedSeqs(status).max() == 7, "\(status.all)")
        #expect(bridge.stop() == 0)
        #expect(BridgeProcess.savedSeq(in: state) == 7)
        #expect(broker.connections == 2, "\(bridge.log)")
    }

    /// The window's own rules: a PUBACK for a mid it did not record moves nothing, not even for an event recorded later
    /// with that mid; an event counts only right after the one before it, in the window's session; PUBACKs out of order
    /// move the acknowledged seq only over what is acknowledged from its start.
    @Test func theWindowCountsOnlyWhatItRecordedInOrderInItsSession() {
        var window = PublishWindow(capacity: 10, acknowledgedSeq: 0)
        window.sessionStarted(1, receiveMaximum: 5)
        #expect(window.record(seq: 1, mid: 1, session: 1) == true)
        #expect(window.record(seq: 2, mid: 2, session: 1) == true)
        #expect(window.acknowledge(mid: 9, session: 1) == nil)
        #expect(window.record(seq: 3, mid: 9, session: 1) == true)
        #expect(window.acknowledge(mid: 2, session: 1) == 2)
        #expect(window.acknowledgedSeq == 0)
        #expect(window.acknowledge(mid: 1, session: 2) == nil)
        #expect(window.acknowledge(mid: 1, session: 1) == 1)
        #expect(window.acknowledgedSeq == 2)
        #expect(window.record(seq: 5, mid: 10, session: 1) == false)
        #expect(window.record(seq: 4, mid: 11, session: 2) == false)
        #expect(window.takeResend() == 2)
    }
}
