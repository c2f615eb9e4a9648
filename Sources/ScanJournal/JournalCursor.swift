import Glibc

/// Reads the journal forward from a `seq`, batch by batch, across segments,
/// keeping up with events appended while it reads.
public struct JournalCursor: Sendable {
    let journal: Journal
    var segmentFirstSeq: UInt64
    var offset = 0
    /// The last `seq` read (or the start, before any): later batches hold only greater ones.
    public private(set) var position: UInt64

    init(journal: Journal, segmentFirstSeq: UInt64, position: UInt64) {
        self.journal = journal
        self.segmentFirstSeq = segmentFirstSeq
        self.position = position
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
            }
            let events = try readBatch(maxBytes: maxBytes)
            if !events.isEmpty { return events }
            guard let following = segments.first(where: { $0 > segmentFirstSeq }) else { return [] }
            if try !hasUnreadLines() {
                segmentFirstSeq = following
                offset = 0
            }
        }
    }

    /// Reads whole lines from the current segment; skips those not above `position`.
    private mutating func readBatch(maxBytes: Int) throws -> [JournaledEvent] {
        var events: [JournaledEvent] = []
        while events.isEmpty {
            let path = journal.segmentPath(segmentFirstSeq)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT { return [] }
                throw JournalError.system(operation: "open", path: path, errno: errno)
            }
            defer { close(descriptor) }
            let bytes = try FileCalls.readAt(descriptor, offset: offset, count: maxBytes, path: path)
            guard let lastNewline = bytes.lastIndex(of: 0x0A) else {
                if bytes.count == maxBytes {
                    return try readLongLine(descriptor: descriptor, path: path)
                }
                return []
            }
            var lineStart = 0
            while lineStart <= lastNewline {
                let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A)!
                let line = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
                if let event = JournaledEvent(line: line), event.seq > position {
                    events.append(event)
                    position = event.seq
                }
                lineStart = lineEnd + 1
            }
            offset += lastNewline + 1
        }
        return events
    }

    /// One line longer than a batch: read it whole.
    private mutating func readLongLine(descriptor: Int32, path: String) throws -> [JournaledEvent] {
        var length = 0
        var chunkSize = 262_144
        while true {
            let bytes = try FileCalls.readAt(descriptor, offset: offset + length, count: chunkSize, path: path)
            if let newline = bytes.firstIndex(of: 0x0A) {
                length += newline
                break
            }
            if bytes.count < chunkSize { return [] }
            length += bytes.count
            chunkSize *= 2
        }
        let line = try FileCalls.readAt(descriptor, offset: offset, count: length, path: path)
        offset += length + 1
        if let event = JournaledEvent(line: String(decoding: line, as: UTF8.self)), event.seq > position {
            position = event.seq
            return [event]
        }
        return []
    }

    private func hasUnreadLines() throws -> Bool {
        let path = journal.segmentPath(segmentFirstSeq)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return try FileCalls.size(descriptor, path: path).bytes > offset
    }
}
