import Foundation
import Glibc
import JSONCore
import ScanJournal
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct JournalTests {
    @Test func eventsStartAtOneCarryTypeSeqAtFirstAndReadBack() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let journal = try Journal(path: directory.path + "/journal")
        #expect(journal.lastSeq == 0)
        let first = try journal.append(type: "source", fields: [("id", "nfc"), ("state", "absent")])
        let second = try journal.append(type: "scan", fields: [("raw", "https://x/é")])
        #expect(first.seq == 1)
        #expect(second.seq == 2)
        let parsed = try JSON.parse(first.line)
        #expect(parsed.objectValue?.map(\.0) == ["type", "seq", "at", "id", "state"])
        let at = try #require(parsed["at"]?.stringValue)
        #expect(at.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        #expect(try journal.events(after: 0) == [first, second])
        #expect(try journal.events(after: 1) == [second])
        #expect(try journal.events(after: 2).isEmpty)
        #expect(try journal.events(after: 99).isEmpty)
        #expect(journal.recoveryNote == nil)
    }

    /// A scan's API call starts between `write` and `commit`: the line must be in the file by then, unread by a
    /// cursor and not counted in `lastSeq` until committed, and a refused write gives nothing to commit.
    @Test func aWrittenLineIsInTheFileAndIsReadAndCountedOnlyOnceCommitted() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let journal = try Journal(path: directory.path + "/journal")
        let written = try journal.write(type: "scan", fields: [("raw", "https://x/1")])
        var seenInFile: [String] = []
        for segment in try FileManager.default.contentsOfDirectory(atPath: directory.path + "/journal") {
            let text = try String(contentsOfFile: directory.path + "/journal/" + segment, encoding: .utf8)
            seenInFile += text.split(separator: "\n").map(String.init)
        }
        #expect(seenInFile == [written.event.line])
        #expect(journal.lastSeq == 0)
        var cursor = try journal.cursor(after: 0)
        #expect(try cursor.next().isEmpty, "a line not yet durable was read")
        let event = try journal.commit(written, keepingIfUnsynced: false)
        #expect(journal.lastSeq == 1)
        #expect(try cursor.next() == [event])
        journal.close()
        #expect(throws: JournalError.closed) {
            try journal.write(type: "scan", fields: [("raw", "https://x/2")])
        }
    }

    /// A scan keeps its verdict's room: allocated past the end (the size stays: readers see nothing), carried into a
    /// new segment when one starts (and freed from the old one), and taken by the verdict in the segment it is in,
    /// however large that segment already is.
    @Test func roomKeptForAVerdictIsAllocatedAheadAndCarriedIntoTheNextSegment() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        let journal = try Journal(path: path, segmentBytes: 4_096)
        func allocation(_ segment: String) throws -> (size: Int, allocated: Int) {
            var info = stat()
            #expect(stat(path + "/" + segment, &info) == 0)
            return (Int(info.st_size), Int(info.st_blocks) * 512)
        }
        let room = 200_000
        _ = try journal.append(type: "scan", fields: [("raw", "https://x/1")], room: .reserve(bytes: room))
        let first = try #require(directory.segments(path).first)
        let kept = try allocation(first)
        #expect(kept.allocated >= kept.size + room, "\(kept)")
        #expect(try journal.events(after: 0).count == 1, "the room is not read as events")

        var filler = 0
        while directory.segments(path).count == 1 {
            filler += 1
            _ = try journal.append(type: "source", fields: [("detail", .string(String(repeating: "f", count: 1_000)))])
        }
        let second = try #require(directory.segments(path).last)
        let carried = try allocation(second)
        #expect(carried.allocated >= carried.size + room, "\(carried)")
        let freed = try allocation(first)
        #expect(freed.allocated < freed.size + room, "the old segment keeps the room: \(freed)")

        // The verdict goes into the room of the segment it is in, past its size bound, without starting another.
        while try allocation(second).size < 4_096 {
            _ = try journal.append(type: "source", fields: [("detail", .string(String(repeating: "f", count: 1_000)))])
        }
        let count = directory.segments(path).count
        let verdict = try journal.append(type: "verdict", fields: [("outcome", "authentic")], room: .use(bytes: room))
        #expect(directory.segments(path).count == count)
        #expect(try journal.events(after: verdict.seq - 1) == [verdict])
        #expect(filler > 0)
    }

    @Test func seqKeepsGrowingAcrossRestarts() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        do {
            let journal = try Journal(path: path, segmentBytes: 1_024)
            for _ in 0..<30 { _ = try journal.append(type: "scan", fields: [("raw", "abcdefghijklmnopqrstuvwxyz")]) }
            journal.close()
        }
        #expect(directory.segments(path).count > 1)
        let reopened = try Journal(path: path, segmentBytes: 1_024)
        #expect(reopened.lastSeq == 30)
        #expect(try reopened.append(type: "verdict", fields: []).seq == 31)
        #expect(try reopened.events(after: 0).map(\.seq) == Array(1...31))
    }

    @Test func aTornLastRecordIsCutAwayAndReported() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        do {
            let journal = try Journal(path: path)
            for _ in 0..<3 { _ = try journal.append(type: "scan", fields: [("raw", "r")]) }
            journal.close()
        }
        let segment = path + "/" + directory.segments(path).last!
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"type":"scan","seq":4,"at":"2026-01-01T00:00"#.utf8))
        handle.closeFile()

        let reopened = try Journal(path: path)
        #expect(reopened.lastSeq == 3)
        let note = try #require(reopened.recoveryNote)
        #expect(note.contains("1 torn record"))
        #expect(try reopened.append(type: "scan", fields: []).seq == 4)
        #expect(try reopened.events(after: 0).map(\.seq) == [1, 2, 3, 4])
        let text = try String(contentsOfFile: segment, encoding: .utf8)
        #expect(text.split(separator: "\n").allSatisfy { (try? JSON.parse($0)) != nil })
    }

    @Test func aWholeButUnparsableLastLineAndTrailingZerosAreCutAway() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        do {
            let journal = try Journal(path: path)
            for _ in 0..<2 { _ = try journal.append(type: "scan", fields: []) }
            journal.close()
        }
        let segment = path + "/" + directory.segments(path).last!
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"type":"scan","seq":3,"at":"#.utf8 + [0x0A] + [UInt8](repeating: 0, count: 4096)))
        handle.closeFile()

        let reopened = try Journal(path: path)
        #expect(reopened.lastSeq == 2)
        #expect(reopened.recoveryNote?.contains("2 torn records") == true)
        #expect(try reopened.events(after: 0).map(\.seq) == [1, 2])
    }

    @Test func retentionBySizeDropsWholeOldestSegments() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        let journal = try Journal(path: path, maxBytes: 8_192, segmentBytes: 2_048)
        let payload = String(repeating: "p", count: 100)
        for _ in 0..<400 { _ = try journal.append(type: "scan", fields: [("raw", .string(payload))]) }
        let sizes = try directory.segments(path).map {
            try FileManager.default.attributesOfItem(atPath: path + "/" + $0)[.size] as! Int
        }
        #expect(sizes.reduce(0, +) <= 8_192 + 2_048)
        let oldest = journal.oldestAvailableSeq
        #expect(oldest > 1)
        #expect(throws: JournalError.notAvailable(since: 0, oldestAvailable: oldest)) { try journal.events(after: 0) }
        #expect(throws: JournalError.self) { try journal.events(after: oldest - 2) }
        #expect(try journal.events(after: oldest - 1).map(\.seq) == Array(oldest...400))
        let reopened = try Journal(path: path + "", maxBytes: 8_192, segmentBytes: 2_048)
        #expect(reopened.lastSeq == 400)
    }

    /// A scan deferred through an API outage holds the only copy of its proof: retention keeps its segment, past the
    /// size and age bounds, across a restart too (whose retention runs before the daemon could say it again), until
    /// the floor is lifted.
    @Test func retentionKeepsTheSegmentsFromTheFloorUntilItIsLifted() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        let payload = String(repeating: "p", count: 100)
        do {
            let journal = try Journal(path: path, maxBytes: 8_192, segmentBytes: 2_048)
            _ = try journal.append(type: "scan", fields: [("raw", "the deferred proof")])
            journal.keep(from: 1)
            for _ in 0..<200 { _ = try journal.append(type: "scan", fields: [("raw", .string(payload))]) }
            #expect(journal.oldestAvailableSeq == 1, "kept past maxBytes")
            journal.close()
        }
        let twoHoursAgo = Date().addingTimeInterval(-7_200)
        for name in directory.segments(path).dropLast() {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: path + "/" + name)
        }
        let reopened = try Journal(path: path, maxBytes: 8_192, maxAge: 3_600, segmentBytes: 2_048)
        #expect(reopened.oldestAvailableSeq == 1, "kept past maxAge, at the start's retention")
        #expect(try reopened.events(after: 0).first?.line.contains("the deferred proof") == true)
        reopened.keep(from: nil)
        _ = try reopened.append(type: "scan", fields: [("raw", .string(payload))])
        #expect(reopened.oldestAvailableSeq > 1, "lifted: the next append's retention drops what it may")
        #expect(!FileManager.default.fileExists(atPath: path + "/kept-from"))
    }

    @Test func retentionByAgeDropsSegmentsWhoseNewestEventIsTooOld() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        do {
            let journal = try Journal(path: path, segmentBytes: 512)
            for _ in 0..<20 { _ = try journal.append(type: "scan", fields: [("raw", "0123456789012345678901234567890123456789")]) }
            journal.close()
        }
        let names = directory.segments(path)
        #expect(names.count >= 3)
        let twoHoursAgo = Date().addingTimeInterval(-7_200)
        for name in names.prefix(2) {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: path + "/" + name)
        }
        let reopened = try Journal(path: path, maxAge: 3_600, segmentBytes: 512)
        #expect(directory.segments(path) == Array(names.dropFirst(2)))
        let oldest = reopened.oldestAvailableSeq
        #expect(throws: JournalError.notAvailable(since: 0, oldestAvailable: oldest)) { try reopened.events(after: 0) }
        #expect(try reopened.events(after: oldest - 1).last?.seq == 20)
        #expect(reopened.lastSeq == 20)
    }

    @Test func aCursorFollowsAppendsAcrossSegments() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let journal = try Journal(path: directory.path + "/journal", segmentBytes: 300)
        for _ in 0..<5 { _ = try journal.append(type: "scan", fields: [("raw", "0123456789")]) }
        var cursor = try journal.cursor(after: 2)
        var seen: [UInt64] = []
        seen += try cursor.next(maxBytes: 100).map(\.seq)
        for _ in 0..<5 { _ = try journal.append(type: "verdict", fields: [("outcome", "authentic")]) }
        while true {
            let batch = try cursor.next(maxBytes: 100)
            if batch.isEmpty { break }
            seen += batch.map(\.seq)
        }
        #expect(seen == Array(3...10))
        #expect(cursor.position == 10)
    }

    @Test func concurrentAppendsGetDistinctContiguousSeqs() async throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let journal = try Journal(path: directory.path + "/journal", segmentBytes: 4_096)
        let seqs = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for writer in 0..<4 {
                group.addTask {
                    try (0..<50).map { _ in try journal.append(type: "scan", fields: [("writer", .int(Int64(writer)))]).seq }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(seqs.sorted() == Array(1...200))
        #expect(try journal.events(after: 0).map(\.seq) == Array(1...200))
    }

    @Test func aWriterKilledMidBurstLosesNoAcknowledgedEvent() throws {
        let directory = try ScratchDirectory("scanjournal-test")
        let path = directory.path + "/journal"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: builtProduct("journal-writer"))
        writer.arguments = [path]
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        var acknowledged: UInt64 = 0
        var pending = Data()
        while acknowledged < 300 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending += chunk
            while let newline = pending.firstIndex(of: 0x0A) {
                acknowledged = UInt64(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)) ?? acknowledged
                pending = pending[(newline + 1)...]
            }
        }
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        #expect(acknowledged >= 300)

        let reopened = try Journal(path: path, segmentBytes: 16_384)
        #expect(reopened.lastSeq >= acknowledged)
        let seqs = try reopened.events(after: 0).map(\.seq)
        let contiguous = seqs == Array(1...reopened.lastSeq)
        #expect(contiguous)
    }
}

