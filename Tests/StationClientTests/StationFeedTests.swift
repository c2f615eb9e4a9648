import BridgeTestSupport
import Foundation
import POSIXSupport
@testable import StationClient
import StationWire
import Synchronization
import Testing
import TestSupport

/// What a feed yielded so far, read by the test while the feed's task runs.
final class FeedRecord: Sendable {
    private let events = Mutex<[UInt64]>([])
    private let disconnects = Mutex(0)
    private let lines = Mutex<[String]>([])

    func note(_ update: StationUpdate) {
        switch update {
        case .event(let event):
            events.withLock { $0.append(event.seq ?? 0) }
            lines.withLock { $0.append(event.line) }
        case .disconnected: disconnects.withLock { $0 += 1 }
        default: break
        }
    }

    var seqs: [UInt64] { events.withLock { $0 } }
    var disconnectCount: Int { disconnects.withLock { $0 } }
    var eventLines: [String] { lines.withLock { $0 } }

    /// Waits for `count` events, checking every 10 ms.
    func waitFor(count: Int, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while seqs.count < count {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("only \(seqs.count) of \(count) events within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct StationFeedTests {
    @Test func followsFromASeqAcrossADaemonRestartWithNoGapAndNoRepeat() async throws {
        let first = try StationDaemon()
        try first.scanForeignCodes(5, tag: "before")
        let record = FeedRecord()
        let feed = StationFeed(socketPath: first.socketPath, since: 3)
        let following = Task { for await update in feed { record.note(update) } }
        defer { following.cancel() }
        try await record.waitFor(count: 7)  // seq 4 ... 10
        first.stop()
        let second = try StationDaemon(directory: first.directory)
        try second.scanForeignCodes(3, tag: "after")
        try await record.waitFor(count: 13)
        #expect(record.seqs == Array(4...16))
        #expect(record.disconnectCount >= 1)
        #expect(record.eventLines.last?.contains(#""type":"verdict""#) == true)
        second.stop()
        withExtendedLifetime(first) {}  // its folder holds the second daemon's journal
    }

    @Test func aConnectionAnswersCommandsAndKeepsTheDaemonsLineByteForByte() async throws {
        let daemon = try StationDaemon(station: "dock-9")
        let connection = try await StationConnection.connect(path: daemon.socketPath)
        #expect(connection.hello.station == "dock-9")
        try connection.send(ClientCommand(id: "v1", action: .verify(raw: "é \u{1} foreign")))
        var verdict: StationLine?
        while verdict == nil, let message = await connection.next() {
            if message.type == .event(.verdict) { verdict = message }
        }
        #expect(verdict?.json["request_id"]?.stringValue == "v1")
        #expect(verdict?.json["outcome"]?.stringValue == "not_sealtrust")
        connection.close()
        #expect(await connection.next() == nil)
        daemon.stop()
    }

    @Test func anUnreachableDaemonIsRetriedWithBackOff() async throws {
        let feed = StationFeed(socketPath: "/nonexistent/scand.sock", since: 0)
        var iterator = feed.makeAsyncIterator()
        guard case .disconnected(let error, let retry) = await iterator.next() else {
            Issue.record("expected a failed attempt")
            return
        }
        #expect(error == .system(operation: "connect", path: "/nonexistent/scand.sock", errno: Errno(ENOENT)))
        #expect(retry >= .milliseconds(800) && retry <= .milliseconds(1200))
        var backoff = ReconnectBackoff()
        let waits = (0..<8).map { _ in backoff.next() }
        #expect(waits[1] >= .milliseconds(1600) && waits[1] <= .milliseconds(2400))
        #expect(waits[7] >= .seconds(48) && waits[7] <= .seconds(72))
    }

    /// A resume after retention starts at the seq the daemon names: its ASCII digits, whatever follows them.
    @Test func theOldestKeptSeqIsItsASCIIDigits() {
        #expect(oldestKeptSeq(inDetail: "events after 3 are gone (the oldest kept is 17)") == 17)
        #expect(oldestKeptSeq(inDetail: "the oldest kept is 2\u{65D}") == 2, "a digit and a combining mark after it")
        #expect(oldestKeptSeq(inDetail: "the oldest kept is \u{663}") == nil, "an Arabic-Indic digit is no seq")
        #expect(oldestKeptSeq(inDetail: "the oldest kept is 18446744073709551616") == nil, "above UInt64")
        #expect(oldestKeptSeq(inDetail: "no seq here") == nil)
    }
}
