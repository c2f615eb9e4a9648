import Glibc
import POSIXSupport

/// Reads the journal forward from a `seq`, batch by batch, across segments,
/// keeping up with events appended while it reads.
public struct JournalCursor: Sendable {
    let journal: Journal
    var segmentFirstSeq: UInt64
    var offset = 0
    /// The line `offset` is at, from 0 in each segment: a line's seq cannot run ahead of it.
    var line = 0
    /// The last `seq` read (or the start, before any): later batches hold only greater ones.
    public private(set) var position: UInt64
    /// Where it started: lines at or below it are skipped quietly, later ones out of order are reported.
    let start: UInt64

    init(journal: Journal, segmentFirstSeq: UInt64, position: UInt64) {
        self.journal = journal
        self.segmentFirstSeq = segmentFirstSeq
        self.position = position
        self.start = position
    }

    /// The next whole events, about `maxBytes` of them; empty once it has caught up.
    public mutating func next(maxBytes: Int = 262_144) throws -> [JournaledEvent] {
        while true {
            let segments = journal.segmentFirstSeqs()
            if !segments.contains(segmentFirstSeq) {
                guard let following = segments.first(where: { $0 > segmentFirstSeq }), following <= position + 1 else {
                    throw JournalError.notAvailable(since: position, oldestAvailable: segments[0])
                }
                segmentFirstSeq = following
                offset = 0
                line = 0
            }
            let events = try readBatch(maxBytes: maxBytes)
            if !events.isEmpty { return events }
            guard let following = segments.first(where: { $0 > segmentFirstSeq }) else { return [] }
            if try !hasUnreadLines() {
                segmentFirstSeq = following
                offset = 0
                line = 0
            }
        }
    }

    /// Reads whole lines from the current segment; skips those not above `position`.
    /// A line that is no event, or whose seq cannot be in this segment, is reported and passed over:
    /// it never moves `position`, so the lines after it still come.
    private mutating func readBatch(maxBytes: Int) throws -> [JournaledEvent] {
        let path = journal.segmentPath(segmentFirstSeq)
        let descriptor: Int32
        do throws(Errno) {
            descriptor = try FileDescriptor.open(path, O_RDONLY)
        } catch where error == Errno(ENOENT) {
            return []
        } catch {
            throw JournalError.system(operation: "open", path: path, errno: error)
        }
        defer { FileDescriptor.close(descriptor) }
        var events: [JournaledEvent] = []
        while events.isEmpty {
            let bytes = try FileCalls.readAt(descriptor, offset: offset, count: maxBytes, path: path)
            // Read after the bytes: a line already committed is within it.
            let limit = journal.seqLimit(ofSegment: segmentFirstSeq)
            guard let lastNewline = bytes.lastIndex(of: 0x0A) else {
                // No newline: the end of what is written, or one line longer than a batch.
                guard bytes.count == maxBytes, let long = try readLongLine(descriptor: descriptor, path: path) else { return [] }
                guard take(long[...], at: offset, path: path, limit: limit, into: &events) else { return events }
                offset += long.count + 1
                continue
            }
            var lineStart = 0
            while lineStart <= lastNewline {
                let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A)!
                if lineHoldsNothingAfterStart {
                    line += 1
                } else if !take(bytes[lineStart..<lineEnd], at: offset + lineStart, path: path, limit: limit, into: &events) {
                    offset += lineStart
                    return events
                }
                lineStart = lineEnd + 1
            }
            offset += lastNewline + 1
        }
        return events
    }

    /// A line's seq is at most its segment's first seq plus its index, so the lines up to `start` are passed over
    /// unparsed: a replay from late in a long segment costs the server's loop a scan for newlines, not a parse of
    /// every line before it.
    private var lineHoldsNothingAfterStart: Bool {
        segmentFirstSeq <= start && UInt64(line) <= start - segmentFirstSeq
    }

    /// Takes the line into `events` (or passes over it, said once); false, leaving it unread, when it is the active
    /// segment's line written and not committed yet (or undone since): it is read again at the next batch.
    private mutating func take(
        _ text: ArraySlice<UInt8>, at lineOffset: Int, path: String, limit: (limit: UInt64, isActive: Bool),
        into events: inout [JournaledEvent]
    ) -> Bool {
        guard let event = JournaledEvent(line: String(decoding: text, as: UTF8.self)) else {
            line += 1
            journal.warnOnce(at: "\(path) at byte \(lineOffset)", "not an event")
            return true
        }
        let plausible = SegmentFile.plausibleSeqs(firstSeq: segmentFirstSeq, line: line)
        if limit.isActive, event.seq > limit.limit, plausible.contains(event.seq) { return false }
        line += 1
        guard plausible.contains(event.seq), event.seq <= limit.limit else {
            let upper = min(plausible.upperBound, limit.limit)
            let bounds = upper < segmentFirstSeq ? "none" : "\(segmentFirstSeq) to \(upper)"
            journal.warnOnce(at: "\(path) at byte \(lineOffset)", "seq \(event.seq) cannot be on this line (\(bounds))")
            return true
        }
        if event.seq > position {
            events.append(event)
            position = event.seq
        } else if event.seq > start {
            journal.warnOnce(at: "\(path) at byte \(lineOffset)", "seq \(event.seq) comes after \(position)")
        }
        return true
    }

    /// The line at `offset`, longer than a batch, read whole; nil while its end is not written yet.
    private func readLongLine(descriptor: Int32, path: String) throws -> [UInt8]? {
        var length = 0
        var chunkSize = 262_144
        while true {
            let bytes = try FileCalls.readAt(descriptor, offset: offset + length, count: chunkSize, path: path)
            if let newline = bytes.firstIndex(of: 0x0A) {
                length += newline
                break
            }
            if bytes.count < chunkSize { return nil }
            length += bytes.count
            chunkSize *= 2
        }
        return try FileCalls.readAt(descriptor, offset: offset, count: length, path: path)
    }

    private func hasUnreadLines() throws -> Bool {
        let path = journal.segmentPath(segmentFirstSeq)
        guard let descriptor = try? FileDescriptor.open(path, O_RDONLY) else { return false }
        defer { FileDescriptor.close(descriptor) }
        return try FileCalls.size(descriptor, path: path).bytes > offset
    }
}
