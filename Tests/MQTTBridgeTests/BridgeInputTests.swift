import BridgeTestSupport
import Foundation
@testable import MQTTBridge
import Testing
import TestSupport

/// What fuzz/mqtt found in the bridge's readers of outside text, and the replay requests' reader: each is refused now,
/// with a usage line.
@Suite(.timeLimit(.minutes(1))) struct BridgeInputTests {
    @Test func aPortIsReadFromDigitsOnly() throws {
        #expect(throws: UsageError.self) { try BrokerAddress(parsing: "mqtt://broker:+1883") }
        #expect(try BrokerAddress(parsing: "mqtt://broker:1883").port == 1883)
    }

    /// "[a" was taken as a host, and written back as "mqtt://[a:1883", which no longer reads.
    @Test func aHostWithABracketInsideIsRefused() throws {
        #expect(throws: UsageError.self) { try BrokerAddress(parsing: "mqtt://[[a]:1883") }
        #expect(throws: UsageError.self) { try BrokerAddress(parsing: "mqtt://br]oker:1883") }
        let address = try BrokerAddress(parsing: "mqtt://[::1]:1883")
        #expect(try BrokerAddress(parsing: address.description) == address)
    }

    /// A longer file was cut to its first 32 bytes ("000…01" then "7" read as 1), and "+5" was taken as 5.
    @Test func anAcknowledgedSeqIsTheWholeFileOrAnError() throws {
        let directory = try makeScratchDirectory("acked-seq")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = AcknowledgedSeqFile(directory: directory)
        for refused in [String(repeating: "0", count: 31) + "17\n", "+5\n", "5\n\n", ""] {
            try refused.write(toFile: file.path, atomically: false, encoding: .utf8)
            #expect(throws: UsageError.self, "\(refused.debugDescription)") { try file.load() }
        }
        #expect(file.save(9_223_372_036_854_775_807) == nil)
        #expect(try file.load() == 9_223_372_036_854_775_807)
        // 2^64 - 1 read, then `saved + 1` trapped: the bridge crashed at each start (issue 29, item 2).
        #expect(file.save(18_446_744_073_709_551_615) == nil)
        #expect(throws: UsageError.self) { try file.load() }
    }

    /// A replay request is `{"since":N}` or `{"from":A,"to":B}`, each bounded (a `since` asked for a whole journal, and 64
    /// of them queued meant ten minutes of repeats); anything else gets a refusal.
    @Test func aReplayRequestIsASinceOrABoundedRange() throws {
        #expect(try ReplayRequest(payload: Array(#"{"since":7}"#.utf8)) == ReplayRequest(first: 8, last: 100_007, toNewest: true))
        #expect(try ReplayRequest(payload: Array(#"{"since":0}"#.utf8)).size == ReplayRequest.largestRange)
        #expect(try ReplayRequest(payload: Array(#"{"from":3,"to":9}"#.utf8)) == ReplayRequest(first: 3, last: 9))
        for refused in [#"{"from":0,"to":9}"#, #"{"from":9,"to":3}"#, #"{"since":-1}"#, #"{"since":1,"from":1,"to":2}"#,
                        #"{"from":1,"to":200000}"#, #"{"since":18446744073709551615}"#, "[]", "since=1"] {
            #expect(throws: ReplayRequestError.self, "\(refused)") { try ReplayRequest(payload: Array(refused.utf8)) }
        }
    }
}
