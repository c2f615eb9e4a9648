import Glibc
import JSONCore
@testable import MQTTBridge
import POSIXSupport
@testable import StationClient
import StationWire
import Testing

/// The bridge's rules as a value (issue 43): inputs in, effects out, with no thread, socket, broker or clock. What a
/// station's operator and a back office see follows from these effects: the topics, the order and the acknowledged
/// seq of what goes out, systemd's status line, the retained status, the state file and the log.
@Suite struct BridgeRulesTests {
    private static let start = ContinuousClock.now
    /// 2026-12-07T18:00:00Z.
    private static let wall: Int64 = 1_796_666_400

    private static func at(_ second: Int64) -> BridgeTime {
        BridgeTime(wall: wall + second, monotonic: start + .seconds(second))
    }

    private static func rules(urls: [String] = ["mqtt://broker-1:1883"], saved: UInt64 = 0, capacity: Int = 10) throws -> BridgeRules {
        let options = try BridgeOptions.parse(["--socket", "/run/sealtrust/scand.sock"] + urls.flatMap { ["--url", $0] })
        return BridgeRules(options: options, seqFilePath: "/var/lib/sealtrust-mqtt/acked-seq", saved: saved, windowCapacity: capacity)
    }

    private static func message(_ fields: [(String, JSON)]) -> StationLine {
        StationLine(line: JSON.object(fields).encoded())!
    }

    private static func hello(_ station: String, lastSeq: UInt64) -> StationUpdate {
        let greeting = message([("type", "hello"), ("protocol", 1), ("station", .string(station)), ("last_seq", .int(Int64(lastSeq)))])
        return .connected(StationHello(greeting)!, since: 0)
    }

    private static func event(_ seq: UInt64, _ type: String = "scan", extra: [(String, JSON)] = []) -> StationUpdate {
        .event(message([("type", .string(type)), ("seq", .int(Int64(seq)))] + extra))
    }

    private static func published(_ effects: [BridgeEffect]) -> [UInt64] {
        effects.compactMap { effect in
            guard case .publish(.event(let seq, _, _)) = effect else { return nil }
            return seq
        }
    }

    private static func logs(_ effects: [BridgeEffect]) -> [String] {
        effects.compactMap { effect in
            guard case .log(_, let text) = effect else { return nil }
            return text
        }
    }

    private static func statusLines(_ effects: [BridgeEffect]) -> [String] {
        effects.compactMap { effect in
            guard case .systemdStatus(let line) = effect else { return nil }
            return line
        }
    }

    /// Publishes event `seq` as the runtime does: admitted, then recorded as libmosquitto's `mid`.
    private static func publish(_ seq: UInt64, mid: Int32, session: Int, in rules: inout BridgeRules) -> BridgeRules.Admission {
        let admission = rules.admit(seq: seq, type: .event(.scan))
        if case .publish = admission { #expect(rules.recordEvent(seq: seq, mid: mid, session: session) == true) }
        return admission
    }

    @Test func theDaemonsHelloNamesTheTopicsOnceAndEventsGoOutInOrderWithinTheBrokersRoom() throws {
        var rules = try Self.rules(capacity: 10)
        let hello = rules.handle(.daemon(Self.hello("dock 7", lastSeq: 3)), at: Self.at(0))
        #expect(hello.contains(.startLink(Topics(prefix: "sealtrust", station: "dock 7"))))
        #expect(hello.contains(.askDaemonStatus))
        #expect(Self.statusLines(hello) == ["degraded: broker connecting; daemon connected; acked seq 0, lag 3"])
        // The daemon renamed its station: the topics stay until a restart, and the operator is told.
        let renamed = rules.handle(.daemon(Self.hello("dock 8", lastSeq: 3)), at: Self.at(1))
        #expect(!renamed.contains { if case .startLink = $0 { true } else { false } })
        #expect(Self.logs(renamed).contains { $0.contains("now calls its station dock 8; restart sealtrust-mqtt") })

        #expect(Self.published(rules.handle(.daemon(Self.event(1)), at: Self.at(1))) == [1])
        // No session yet: the event waits.
        #expect(rules.admit(seq: 1, type: .event(.scan)) == .wait)
        let connected = rules.handle(.brokerConnected(session: 1, address: "mqtt://broker-1:1883", version: "MQTT 5", receiveMaximum: 2),
                                     at: Self.at(2))
        #expect(Self.logs(connected) == ["connected to mqtt://broker-1:1883 (MQTT 5)"])
        #expect(connected.contains { if case .publishStatus(let payload) = $0 { payload.contains(#""acked_seq":0"#) } else { false } })
        #expect(!connected.contains { if case .resend = $0 { true } else { false } })

        #expect(Self.publish(1, mid: 1, session: 1, in: &rules) == .publish(topic: "sealtrust/dock 7/event/scan"))
        #expect(Self.publish(2, mid: 2, session: 1, in: &rules) == .publish(topic: "sealtrust/dock 7/event/scan"))
        // The broker takes two in flight: the third waits for a PUBACK.
        #expect(rules.admit(seq: 3, type: .event(.scan)) == .wait)
        _ = rules.handle(.brokerAcknowledged(mid: 2, session: 1, refusal: nil), at: Self.at(2))
        #expect(rules.acknowledgedSeq == 0)
        _ = rules.handle(.brokerAcknowledged(mid: 1, session: 1, refusal: nil), at: Self.at(2))
        #expect(rules.acknowledgedSeq == 2)
        #expect(Self.publish(3, mid: 3, session: 1, in: &rules) == .publish(topic: "sealtrust/dock 7/event/scan"))
        let refused = rules.handle(.brokerAcknowledged(mid: 3, session: 1, refusal: "Quota exceeded (reason 151)"), at: Self.at(3))
        #expect(Self.logs(refused) == ["the broker refused event seq 3: Quota exceeded (reason 151)"])
    }

    @Test func aSessionThatEndsWithEventsUnacknowledgedIsFollowedByTheNextBrokerFromTheAcknowledgedSeq() throws {
        var rules = try Self.rules(urls: ["mqtt://broker-1:1883", "mqtt://broker-2:1883"])
        _ = rules.handle(.daemon(Self.hello("dock-7", lastSeq: 0)), at: Self.at(0))
        _ = rules.handle(.brokerConnected(session: 1, address: "mqtt://broker-1:1883", version: "MQTT 5", receiveMaximum: 10), at: Self.at(0))
        for seq: UInt64 in 1...3 { _ = Self.publish(seq, mid: Int32(seq), session: 1, in: &rules) }
        _ = rules.handle(.brokerAcknowledged(mid: 1, session: 1, refusal: nil), at: Self.at(1))

        let lost = rules.handle(.brokerUnavailable(reason: "lost the connection to mqtt://broker-1:1883", next: "mqtt://broker-2:1883",
                                                   retryIn: .zero), at: Self.at(2))
        #expect(Self.statusLines(lost) == ["degraded: broker lost the connection to mqtt://broker-1:1883; mqtt://broker-2:1883 next; "
                                           + "retry in 0.0 s; daemon connected; acked seq 1, lag 0"])
        #expect(Self.logs(lost) == ["broker: lost the connection to mqtt://broker-1:1883; mqtt://broker-2:1883 next; retry in 0.0 s"])
        #expect(rules.admit(seq: 4, type: .event(.scan)) == .wait)

        let next = rules.handle(.brokerConnected(session: 2, address: "mqtt://broker-2:1883", version: "MQTT 5", receiveMaximum: 10), at: Self.at(2))
        #expect(next.contains(.resend(from: 1)))
        #expect(Self.logs(next).contains("the broker session ended with events unacknowledged: publishing again from seq 2"))
        // The old session's PUBACK, late, moves nothing; the feed brings seq 2 again, and seq 4 read before is stale.
        _ = rules.handle(.brokerAcknowledged(mid: 2, session: 1, refusal: nil), at: Self.at(3))
        #expect(rules.acknowledgedSeq == 1)
        #expect(rules.admit(seq: 4, type: .event(.scan)) == .stale)
        #expect(Self.publish(2, mid: 1, session: 2, in: &rules) == .publish(topic: "sealtrust/dock-7/event/scan"))
        // The first broker answering again is gone back to only once this session has acknowledged what it took.
        #expect(!rules.nothingInFlight)
        _ = rules.handle(.brokerAcknowledged(mid: 1, session: 2, refusal: nil), at: Self.at(3))
        #expect(rules.acknowledgedSeq == 2)
        #expect(rules.nothingInFlight)
    }

    @Test func theTickSavesWhatMovedSaysASaveFailureOnceAndRefreshesTheRetainedStatus() throws {
        var rules = try Self.rules(saved: 4)
        #expect(!rules.handle(.tick, at: Self.at(1)).contains { if case .save = $0 { true } else { false } })
        _ = rules.handle(.daemon(Self.hello("dock-7", lastSeq: 4)), at: Self.at(1))
        _ = rules.handle(.brokerConnected(session: 1, address: "mqtt://broker-1:1883", version: "MQTT 3.1.1", receiveMaximum: 10), at: Self.at(1))
        _ = Self.publish(5, mid: 1, session: 1, in: &rules)
        _ = rules.handle(.brokerAcknowledged(mid: 1, session: 1, refusal: nil), at: Self.at(1))

        #expect(rules.handle(.tick, at: Self.at(2)).contains(.save(5)))
        let failed = rules.handle(.saved(5, failure: Errno(EROFS)), at: Self.at(2))
        #expect(Self.logs(failed) == ["cannot save the acknowledged seq in /var/lib/sealtrust-mqtt/acked-seq: \(Errno(EROFS)); "
                                      + "a restart would publish again what was acknowledged since the last save"])
        // Asked again each tick, said once while it fails, and once when it works again.
        #expect(rules.handle(.tick, at: Self.at(3)).contains(.save(5)))
        #expect(Self.logs(rules.handle(.saved(5, failure: Errno(EROFS)), at: Self.at(3))).isEmpty)
        #expect(Self.logs(rules.handle(.saved(5, failure: nil), at: Self.at(4))) == ["the acknowledged seq is saved in /var/lib/sealtrust-mqtt/acked-seq again"])
        #expect(!rules.handle(.tick, at: Self.at(4)).contains(.save(5)))

        // The retained status follows the moved acked_seq at the fifth tick, and is refreshed with the daemon's
        // status at the sixtieth.
        var statuses: [Int] = []
        var asked: [Int] = []
        for tick in 5...61 {  // the fifth tick of this bridge and on
            let effects = rules.handle(.tick, at: Self.at(Int64(tick)))
            if effects.contains(where: { if case .publishStatus = $0 { true } else { false } }) { statuses.append(tick) }
            if effects.contains(.askDaemonStatus) { asked.append(tick) }
        }
        #expect(statuses == [5, 60])
        #expect(asked == [60])
        #expect(rules.handle(.stopped, at: Self.at(62)) == [.save(5), .systemdStatus("stopped; acked seq 5")])
    }

    @Test func aHeldChipScanGoesWithoutItsURLOnceItsVerdictCanBeWaitedForNoLonger() throws {
        var rules = try Self.rules()
        _ = rules.handle(.daemon(Self.hello("dock-7", lastSeq: 0)), at: Self.at(0))
        let scan = Self.event(1, extra: [("at", "2026-12-07T18:00:00.000Z"), ("scan_id", "s1"), ("raw", "https://sealtrust.io/c/x?e=1"),
                                         ("code", "chip")])
        #expect(Self.published(rules.handle(.daemon(scan), at: Self.at(0))).isEmpty)
        #expect(Self.published(rules.handle(.daemon(Self.event(2, "read_error")), at: Self.at(1))).isEmpty)
        // At the deadline the tick asks the daemon's status once; its answer releases the scan, without its URL.
        #expect(!rules.handle(.tick, at: Self.at(329)).contains(.askDaemonStatus))
        #expect(rules.handle(.tick, at: Self.at(330)).contains(.askDaemonStatus))
        #expect(!rules.handle(.tick, at: Self.at(331)).contains(.askDaemonStatus))
        let answer = rules.handle(.daemon(.answer(Self.message([("type", "status"), ("id", "sealtrust-mqtt-status")]))), at: Self.at(331))
        #expect(Self.published(answer) == [1, 2])
        guard case .publish(.event(1, _, let line))? = answer.first(where: { if case .publish = $0 { true } else { false } }) else {
            Issue.record("no scan released")
            return
        }
        #expect(!line.contains("sealtrust.io/c/") && line.contains(#""raw_withheld":true"#))
    }

    @Test func replayRequestsAreQueuedJoinedOrAnsweredAtOnceAndTheirWarningsAreBounded() throws {
        var rules = try Self.rules()
        let request = Array(#"{"from":1,"to":5}"#.utf8)
        // Before the daemon named the station there is no topic to take requests on.
        #expect(rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: request, retained: false), at: Self.at(0)).isEmpty)
        _ = rules.handle(.daemon(Self.hello("dock-7", lastSeq: 9)), at: Self.at(0))
        let retained = rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: request, retained: true), at: Self.at(1))
        #expect(Self.logs(retained) == ["a retained replay request was ignored: sealtrust/dock-7/replay takes none "
                                        + "(clear it with an empty retained message)"])
        #expect(rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: request, retained: false), at: Self.at(1))
                == [.serveReplay(ReplayRequest(first: 1, last: 5))])
        #expect(rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: request, retained: false), at: Self.at(1)).isEmpty)
        #expect(rules.handle(.brokerMessage(topic: "sealtrust/other/replay", payload: request, retained: false), at: Self.at(1)).isEmpty)
        // A bad request gets its answer at once; its warning waits for the interval, then counts what was held back.
        let bad = rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: Array("since=1".utf8), retained: false), at: Self.at(2))
        #expect(Self.logs(bad).isEmpty)
        guard case .answerReplay(let answer)? = bad.last else {
            Issue.record("no answer: \(bad)")
            return
        }
        #expect(answer.payload.hasPrefix(#"{"error":"#))
        let later = rules.handle(.brokerMessage(topic: "sealtrust/dock-7/replay", payload: Array("[]".utf8), retained: false), at: Self.at(11))
        #expect(Self.logs(later).count == 1 && Self.logs(later)[0].hasSuffix("(and 1 more since the last one logged)"))

        _ = rules.handle(.replayStarted(ReplayRequest(first: 1, last: 5)), at: Self.at(12))
        for _ in 1...5 { _ = rules.handle(.replayRepublished, at: Self.at(12)) }
        let answered = rules.handle(.replayAnswered, at: Self.at(12))
        #expect(Self.statusLines(answered).first?.hasSuffix("; replays answered 1 (5 events again)") == true, "\(answered)")
    }
}
