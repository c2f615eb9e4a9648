import Glibc

/// Repairs the end of the segment being written after a crash.
///
/// A crash mid-write leaves a partial line with no newline (or a tail of
/// zeros); a line that ends but does not parse is as torn. Both are cut away,
/// so the journal ends on its last whole event.
struct TailRecovery {
    var lastSeq: UInt64?
    var removedBytes = 0
    var removedLines = 0

    func note(path: String) -> String? {
        guard removedBytes > 0 else { return nil }
        let lines = removedLines == 1 ? "1 torn record" : "\(removedLines) torn records"
        return "journal: removed \(lines) (\(removedBytes) bytes) at the end of \(path)"
    }

    static func repair(descriptor: Int32, path: String) throws(JournalError) -> TailRecovery {
        var recovery = TailRecovery()
        var size = try FileCalls.size(descriptor, path: path).bytes
        while size > 0 {
            let lastByte = try FileCalls.readAt(descriptor, offset: size - 1, count: 1, path: path)
            let lineEnd = lastByte == [0x0A] ? size - 1 : size
            let lineStart = try startOfLine(before: lineEnd, descriptor: descriptor, path: path)
            if lineEnd < size {
                let bytes = try FileCalls.readAt(descriptor, offset: lineStart, count: lineEnd - lineStart, path: path)
                if let event = JournaledEvent(line: String(decoding: bytes, as: UTF8.self)) {
                    recovery.lastSeq = event.seq
                    break
                }
            }
            recovery.removedBytes += size - lineStart
            recovery.removedLines += 1
            size = lineStart
        }
        if recovery.removedBytes > 0 {
            try FileCalls.truncate(descriptor, to: size, path: path)
            try FileCalls.syncData(descriptor, path: path)
        }
        return recovery
    }

    /// What the lines of a segment say, line by line: its highest plausible seq, and whether its
    /// last event is plausible. Line `k` of a sound segment holds seq `firstSeq + k`; garbage lines only
    /// lower that, so a seq above it (or below `firstSeq`) is one no append wrote there.
    ///
    /// `lastSeq` is the seq of the segment's last line, which `repair` left whole. When it is the highest any line
    /// can hold, no line can be above it and none is parsed: a nearly full segment (16 MiB) parsed line by line held
    /// the daemon's start up 270 ms.
    static func scan(descriptor: Int32, path: String, firstSeq: UInt64, lastSeq: UInt64?) throws(JournalError) -> (highest: UInt64?, lastIsPlausible: Bool) {
        guard let lastSeq else { return (nil, true) }
        let lines = try countLines(descriptor: descriptor, path: path)
        if lines > 0, lastSeq == SegmentFile.plausibleSeqs(firstSeq: firstSeq, line: lines - 1).upperBound {
            return (lastSeq, true)
        }
        return try parseEveryLine(descriptor: descriptor, path: path, firstSeq: firstSeq)
    }

    private static func countLines(descriptor: Int32, path: String) throws(JournalError) -> Int {
        var offset = 0
        var lines = 0
        while true {
            let bytes = try FileCalls.readAt(descriptor, offset: offset, count: 262_144, path: path)
            if bytes.isEmpty { return lines }
            offset += bytes.count
            for byte in bytes where byte == 0x0A { lines += 1 }
        }
    }

    private static func parseEveryLine(descriptor: Int32, path: String, firstSeq: UInt64) throws(JournalError) -> (highest: UInt64?, lastIsPlausible: Bool) {
        var highest: UInt64?
        var lastIsPlausible = true
        var offset = 0
        var index = 0
        var line: [UInt8] = []
        while true {
            let bytes = try FileCalls.readAt(descriptor, offset: offset, count: 262_144, path: path)
            if bytes.isEmpty { return (highest, lastIsPlausible) }
            offset += bytes.count
            var start = 0
            while let newline = bytes[start...].firstIndex(of: 0x0A) {
                line += bytes[start..<newline]
                if let event = JournaledEvent(line: String(decoding: line, as: UTF8.self)) {
                    lastIsPlausible = SegmentFile.plausibleSeqs(firstSeq: firstSeq, line: index).contains(event.seq)
                    if lastIsPlausible { highest = max(highest ?? 0, event.seq) }
                }
                line.removeAll(keepingCapacity: true)
                index += 1
                start = newline + 1
            }
            line += bytes[start...]
        }
    }

    /// The offset just after the newline that precedes `end` (0 when there is none).
    private static func startOfLine(before end: Int, descriptor: Int32, path: String) throws(JournalError) -> Int {
        let chunk = 65_536
        var upper = end
        while upper > 0 {
            let lower = max(0, upper - chunk)
            let bytes = try FileCalls.readAt(descriptor, offset: lower, count: upper - lower, path: path)
            if let newline = bytes.lastIndex(of: 0x0A) { return lower + newline + 1 }
            upper = lower
        }
        return 0
    }
}
