import Foundation
import ScanJournal
import Synchronization
import Testing
import TestSupport

/// Journals made to break the daemon, as an attacker with write access to the directory (or a bad
/// disk) would leave them: each is reported and set aside or passed over, never a crash or a reused seq.
@Suite(.timeLimit(.minutes(1)))
struct CraftedJournalTests {
    /// Collects what the journal says it passed over.
    final class Warnings: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    func line(seq: UInt64, type: String = "scan") -> String {
        #"{"type":"\#(type)","seq":\#(seq),"at":"2026-12-01T11:00:00.000Z","raw":"r"}"# + "\n"
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func files(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func readAll(_ cursor: inout JournalCursor, maxBytes: Int) throws -> [UInt64] {
        var seqs: [UInt64] = []
        while true {
            let batch = try cursor.next(maxBytes: maxBytes)
            if batch.isEmpty { return seqs }
            seqs += batch.map(\.seq)
        }
    }

    @Test func aReplayFromALongLinesSeqGetsEveryEventAfterIt() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let journal = try Journal(path: directory.path + "/journal")
        let long = try journal.append(type: "scan", fields: [("raw", .string(String(repeating: "x", count: 3_000)))])
        let after = try (0..<5).map { _ in try journal.append(type: "verdict", fields: []).seq }
        var cursor = try journal.cursor(after: long.seq)
        #expect(try readAll(&cursor, maxBytes: 1_024) == after)
        var fromStart = try journal.cursor(after: 0)
        #expect(try readAll(&fromStart, maxBytes: 1_024) == [long.seq] + after)
    }

    @Test func aLastSeqBeyondWhatJSONHoldsExactlyIsSetAsideAndNoSeqIsReused() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        try write(line(seq: 1) + line(seq: 9_223_372_036_854_775_807), to: path + "/00000000000000000001.jsonl")
        let journal = try Journal(path: path)
        #expect(journal.lastSeq == 1)
        #expect(try journal.append(type: "scan", fields: []).seq == 2)
        #expect(journal.recoveryNote?.contains("set aside") == true)
        #expect(files(path).contains { $0.hasPrefix("00000000000000000001.jsonl.aside") })
    }

    @Test func aSegmentNamedBeyondAnySeqIsSetAside() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        try write(line(seq: 1) + line(seq: 2) + line(seq: 3), to: path + "/00000000000000000001.jsonl")
        try write("", to: path + "/18446744073709551615.jsonl")
        let journal = try Journal(path: path)
        #expect(journal.lastSeq == 3)
        #expect(try journal.append(type: "scan", fields: []).seq == 4)
        #expect(journal.recoveryNote?.contains("18446744073709551615.jsonl") == true)
        #expect(!files(path).contains("18446744073709551615.jsonl"))
    }

    @Test func aLastSeqBelowItsSegmentsNameIsSetAsideAndSeqsGoOnFromTheName() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        try write(line(seq: 1) + line(seq: 2), to: path + "/00000000000000000001.jsonl")
        try write(line(seq: 100) + line(seq: 5), to: path + "/00000000000000000100.jsonl")
        let journal = try Journal(path: path)
        #expect(journal.lastSeq == 100)
        #expect(try journal.append(type: "scan", fields: []).seq == 101)
        #expect(journal.recoveryNote?.contains("00000000000000000100.jsonl") == true)
    }

    /// Opening reads every line only when the last one's seq is not the highest its place allows (the first case);
    /// a sound segment's lines are counted, not parsed (the second). Either way no seq a line holds is given out again.
    @Test(arguments: [([1, 2, 3, 2], 3), (Array(1...5_000), 5_000)] as [([UInt64], UInt64)])
    func theNextAppendTakesTheSeqAfterTheHighestInTheSegment(seqs: [UInt64], highest: UInt64) throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        try write(seqs.map { line(seq: $0) }.joined(), to: path + "/00000000000000000001.jsonl")
        let journal = try Journal(path: path)
        #expect(journal.lastSeq == highest)
        #expect(try journal.append(type: "scan", fields: []).seq == highest + 1)
    }

    @Test func aFarOffSeqOrGarbageMidSegmentIsReportedWithItsPlaceAndTheRestIsReplayed() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        let segment = path + "/00000000000000000001.jsonl"
        let farOff = line(seq: 9_000_000)
        let garbage = "not an event\n"
        try write(line(seq: 1) + farOff + line(seq: 2) + garbage + line(seq: 3), to: segment)
        let warnings = Warnings()
        let journal = try Journal(path: path, warn: warnings.add)
        #expect(journal.lastSeq == 3)
        #expect(try journal.events(after: 0).map(\.seq) == [1, 2, 3])
        let farOffAt = line(seq: 1).utf8.count
        let garbageAt = farOffAt + farOff.utf8.count + line(seq: 2).utf8.count
        #expect(warnings.all == [
            "journal: \(segment) at byte \(farOffAt): seq 9000000 cannot be on this line (1 to 2); passed over",
            "journal: \(segment) at byte \(garbageAt): not an event; passed over",
        ])
        _ = try journal.events(after: 0)
        #expect(warnings.all.count == 2, "each place is reported once")
    }
}
