import JSONCore
import FoundationEssentials
import Glibc
import POSIXSupport
import Synchronization

/// The durable, numbered record of every event the daemon publishes.
///
/// JSON Lines in segment files under one directory; an event is written and
/// `fdatasync`ed before `append` returns, so what a client received survives
/// a crash. Retention drops whole oldest segments by total size and by age.
public final class Journal: Sendable {
    public let directory: String
    public let maxBytes: Int
    public let maxAge: TimeInterval
    /// A new segment starts once the current one holds this many bytes.
    public let segmentBytes: Int
    /// What opening repaired or set aside, for the log; nil when the journal was sound.
    public let recoveryNote: String?
    /// Where a damaged place met while reading is reported (each place once), for the log.
    let warn: @Sendable (String) -> Void

    /// Every seq the journal gives out: a seq must stay exact as a JSON number in any client (2^53).
    public static let seqs: ClosedRange<UInt64> = 1...(1 << 53 - 1)

    private struct State {
        var segments: [SegmentFile]
        var activeDescriptor: Int32
        var lastSeq: UInt64
        var reportedPlaces: Set<String> = []
        /// Bytes allocated past the active segment's end for the events promised room (see `Room`) and not yet written.
        var reserved = 0
        /// Retention keeps the segment starting here and every later one (`keep(from:)`).
        var keptFrom: UInt64?
    }

    /// What an append does with the room kept past the end of the journal for an event that must follow another, as a
    /// database allocates its log ahead: a scan's verdict, whose API call spends the chip URL, must never find the
    /// disk full. The room is allocated (fallocate) when the first event is written, so the second's write cannot fail
    /// for want of space; while room is kept, other events are written only where they leave it whole.
    public enum Room: Sendable, Equatable {
        case none
        /// The event is written only if `bytes` more can be allocated after it, which are then kept for a later one.
        case reserve(bytes: Int)
        /// The event is the one `reserve(bytes:)` kept room for: it goes into that room (in the active segment, however
        /// large that is), and the room is given back whether or not it was written.
        case use(bytes: Int)
    }

    private let state: Mutex<State>

    /// A journal that does not make sense (a segment whose name is no seq, a last seq outside its
    /// segment's range) is set aside (renamed `NAME.aside-TIME`) and said in `recoveryNote`; seqs go on
    /// after the highest the set-aside file may have given out, so none is reused.
    public init(
        path: String, maxBytes: Int = 268_435_456, maxAge: TimeInterval = 90 * 86_400, segmentBytes: Int? = nil,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.directory = path
        self.maxBytes = max(1, maxBytes)
        self.maxAge = maxAge
        self.segmentBytes = segmentBytes ?? min(16 << 20, max(64 << 10, maxBytes / 8))
        self.warn = warn
        try FileCalls.makeDirectories(path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var notes: [String] = []
        var firstSeqs: [UInt64] = []
        for name in names.sorted() {
            guard let firstSeq = SegmentFile.firstSeq(fromName: name) else { continue }
            if Journal.seqs.contains(firstSeq) {
                firstSeqs.append(firstSeq)
            } else {
                notes.append(try FileCalls.setAside(path + "/" + name, because: "its name is no seq"))
            }
        }
        if firstSeqs.isEmpty {
            firstSeqs = [1]
        }
        var segments: [SegmentFile] = []
        for firstSeq in firstSeqs.dropLast() {
            let filePath = path + "/" + SegmentFile.name(firstSeq: firstSeq)
            let descriptor = try FileCalls.open(filePath, O_RDONLY)
            defer { FileDescriptor.close(descriptor) }
            let (bytes, modified) = try FileCalls.size(descriptor, path: filePath)
            segments.append(SegmentFile(firstSeq: firstSeq, bytes: bytes, newestAt: modified))
        }
        var activeFirstSeq = firstSeqs.last!
        var activePath = path + "/" + SegmentFile.name(firstSeq: activeFirstSeq)
        var descriptor = try FileCalls.open(activePath, O_RDWR | O_CREAT | O_APPEND)
        var lastSeq = activeFirstSeq - 1
        do {
            let recovered = try TailRecovery.repair(descriptor: descriptor, path: activePath)
            notes.insert(contentsOf: [recovered.note(path: activePath)].compactMap { $0 }, at: 0)
            // The highest plausible seq, not the last line's: a line above the last must not be given out again.
            let (highest, lastIsPlausible) = try TailRecovery.scan(descriptor: descriptor, path: activePath, firstSeq: activeFirstSeq,
                                                                      lastSeq: recovered.lastSeq)
            if let last = recovered.lastSeq, !lastIsPlausible {
                FileDescriptor.close(descriptor)
                descriptor = -1
                notes.append(try FileCalls.setAside(activePath, because: "its last seq \(last) cannot be in it"))
                lastSeq = max(lastSeq, highest ?? 0)
                activeFirstSeq = lastSeq + 1
                activePath = path + "/" + SegmentFile.name(firstSeq: activeFirstSeq)
                descriptor = try FileCalls.open(activePath, O_RDWR | O_CREAT | O_APPEND)
            } else if let highest {
                lastSeq = highest
            }
            try FileCalls.syncDirectory(path)
        } catch {
            if descriptor >= 0 { FileDescriptor.close(descriptor) }
            throw error
        }
        let (bytes, modified) = try FileCalls.size(descriptor, path: activePath)
        segments.append(SegmentFile(firstSeq: activeFirstSeq, bytes: bytes, newestAt: modified))
        self.recoveryNote = notes.isEmpty ? nil : notes.joined(separator: "; ")
        self.state = Mutex(State(segments: segments, activeDescriptor: descriptor, lastSeq: lastSeq,
                                 keptFrom: RetentionFloor(directory: path).load()))
        try state.withLock { state in
            try Journal.enforceRetention(&state, directory: path, maxBytes: self.maxBytes, maxAge: maxAge)
        }
    }

    deinit {
        close()
    }

    public var lastSeq: UInt64 { state.withLock { $0.lastSeq } }

    /// Where a reader looking for what `keep(from:)` protects starts: the floor when there is one, else the start of
    /// the segment before the one being written (a floor not yet said covers only events that recent).
    public var keptOrRecentStart: UInt64 {
        state.withLock { state in
            state.keptFrom.map { max($0, state.segments[0].firstSeq) } ?? state.segments[max(0, state.segments.count - 2)].firstSeq
        }
    }

    /// Retention keeps the segment holding `seq` and every later one, past `maxBytes` and `maxAge` if need be, until
    /// told otherwise (nil): the daemon keeps there the oldest scan still waiting for its verdict, so that no retention
    /// drops a proof unanswered. Said again at each start (it is kept in `kept-from` until then).
    public func keep(from seq: UInt64?) {
        state.withLock { state in
            let floor = seq.map { seq in state.segments.last { $0.firstSeq <= seq }?.firstSeq ?? state.segments[0].firstSeq }
            guard floor != state.keptFrom else { return }
            state.keptFrom = floor
            do throws(Errno) {
                try RetentionFloor(directory: directory).save(floor)
            } catch {
                warn("journal: cannot record which segments retention must keep (\(directory)/kept-from: \(error)); kept until the next start")
            }
        }
    }

    /// The `seq` of the oldest event retention has kept (or the next one, when there is none).
    public var oldestAvailableSeq: UInt64 { state.withLock { $0.segments[0].firstSeq } }

    /// Adds `type`, `seq` and `at` first, then `fields`; durable before it returns.
    ///
    /// `whenWritten` runs once the line is written and before it is made durable, under the journal's lock: what
    /// may start as soon as the event is recorded (a scan's API call) starts beside the fdatasync. Once it has run,
    /// a failed fdatasync keeps the line, whose consequence is already out, and throws `UnsyncedAppend`.
    ///
    /// `room`: see `Room`. A file system that cannot allocate ahead (EOPNOTSUPP) keeps no room, and writes as before.
    public func append(type: String, fields: [(String, JSON)], room: Room = .none,
                       whenWritten: (() -> Void)? = nil) throws -> JournaledEvent {
        let (journaled, syncFailure) = try state.withLock { state throws(JournalError) -> (JournaledEvent, JournalError?) in
            if case .use(let bytes) = room { state.reserved = max(0, state.reserved - bytes) }
            guard state.activeDescriptor >= 0 else { throw .closed }
            let seq = state.lastSeq + 1
            let now = Timestamp.now()
            let event = JSON.object([("type", .string(type)), ("seq", .int(Int64(seq))), ("at", .string(now.text))] + fields)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256)
            event.encoded(into: &bytes)
            let line = String(decoding: bytes, as: UTF8.self)
            bytes.append(0x0A)
            let kept: Int
            switch room {
            case .none, .use: kept = state.reserved
            case .reserve(let extra): kept = state.reserved + extra
            }
            // The promised event goes into its room, never into a new segment that would need room of its own.
            if state.segments[state.segments.count - 1].bytes >= segmentBytes, !room.usesReservation {
                try startSegment(&state, keeping: kept + bytes.count)
            }
            let active = state.segments.count - 1
            let activePath = segmentPath(state.segments[active].firstSeq)
            if room.usesReservation {
                // Written into its room whatever the allocation says: a line larger than its room may still fit.
                try? Self.allocate(state.activeDescriptor, from: state.segments[active].bytes, count: bytes.count + kept, path: activePath)
            } else if kept > 0 {
                try Self.allocate(state.activeDescriptor, from: state.segments[active].bytes, count: bytes.count + kept, path: activePath)
            }
            // A line that failed is cut off; the room kept for others is allocated again (the cut may free it).
            let undo = { [state] in
                let end = state.segments[active].bytes
                try? FileCalls.truncate(state.activeDescriptor, to: end, path: activePath)
                if state.reserved > 0 { try? Self.allocate(state.activeDescriptor, from: end, count: state.reserved, path: activePath) }
            }
            do throws(JournalError) {
                try FileCalls.writeAll(state.activeDescriptor, bytes, path: activePath)
            } catch {
                undo()
                throw error
            }
            whenWritten?()
            var syncFailure: JournalError?
            do throws(JournalError) {
                try FileCalls.syncData(state.activeDescriptor, path: activePath)
            } catch {
                guard whenWritten != nil else {
                    undo()
                    throw error
                }
                syncFailure = error
            }
            state.lastSeq = seq
            state.reserved = kept
            state.segments[active].bytes += bytes.count
            state.segments[active].newestAt = now.seconds
            // The event is durable (or its consequence is out) and must be published: a segment retention cannot remove now (a read-only
            // directory) is said once, and removed at a later append.
            do throws(JournalError) {
                try Journal.enforceRetention(&state, directory: directory, maxBytes: maxBytes, maxAge: maxAge)
            } catch {
                if state.reportedPlaces.insert("retention").inserted { warn("journal: retention: \(error); tried again at each append") }
            }
            return (JournaledEvent(seq: seq, type: type, line: line), syncFailure)
        }
        if let syncFailure { throw UnsyncedAppend(event: journaled, failure: syncFailure) }
        return journaled
    }

    /// Every event with a `seq` above `seq`, in order.
    public func events(after seq: UInt64) throws -> [JournaledEvent] {
        var cursor = try cursor(after: seq)
        var events: [JournaledEvent] = []
        while true {
            let batch = try cursor.next()
            if batch.isEmpty { return events }
            events += batch
        }
    }

    /// A reader of the events after `seq`, batch by batch, that keeps up with appends.
    ///
    /// Throws `notAvailable` when retention already removed events after `seq`.
    public func cursor(after seq: UInt64) throws -> JournalCursor {
        try state.withLock { state throws(JournalError) -> JournalCursor in
            let since = min(seq, state.lastSeq)
            let oldest = state.segments[0].firstSeq
            guard since + 1 >= oldest else { throw .notAvailable(since: seq, oldestAvailable: oldest) }
            let segment = state.segments.last { $0.firstSeq <= since + 1 } ?? state.segments[0]
            return JournalCursor(journal: self, segmentFirstSeq: segment.firstSeq, position: since)
        }
    }

    /// Stops appends; later calls of `append` throw `closed`.
    public func close() {
        state.withLock { state in
            if state.activeDescriptor >= 0 {
                FileDescriptor.close(state.activeDescriptor)
                state.activeDescriptor = -1
            }
        }
    }

    func segmentPath(_ firstSeq: UInt64) -> String {
        directory + "/" + SegmentFile.name(firstSeq: firstSeq)
    }

    /// The first seqs of the segments now on disk, oldest first.
    func segmentFirstSeqs() -> [UInt64] {
        state.withLock { $0.segments.map(\.firstSeq) }
    }

    /// The seqs a segment's lines can hold: below the next segment's name, or up to the last appended.
    func seqLimit(ofSegment firstSeq: UInt64) -> UInt64 {
        state.withLock { state in
            (state.segments.first { $0.firstSeq > firstSeq }?.firstSeq).map { $0 - 1 } ?? state.lastSeq
        }
    }

    /// Says once where a reader met a line it had to pass over (`place`: the file and offset).
    func warnOnce(at place: String, _ problem: String) {
        let isNew = state.withLock { $0.reportedPlaces.insert(place).inserted }
        if isNew { warn("journal: \(place): \(problem); passed over") }
    }

    /// Opens the next segment with `keeping` bytes allocated in it (the event about to be written and the room kept),
    /// or throws and leaves the active one as it was; the room allocated past the old segment's end is freed.
    private func startSegment(_ state: inout State, keeping: Int) throws(JournalError) {
        let firstSeq = state.lastSeq + 1
        let path = segmentPath(firstSeq)
        let descriptor = try FileCalls.open(path, O_RDWR | O_CREAT | O_APPEND)
        do throws(JournalError) {
            if state.reserved > 0 { try Self.allocate(descriptor, from: 0, count: keeping, path: path) }
            try FileCalls.syncDirectory(directory)
        } catch {
            FileDescriptor.close(descriptor)
            try? FileSystem.remove(path)
            throw error
        }
        // Freed both ways: tmpfs frees a hole punched past the end, ext4 what a truncation to the end leaves past it.
        let oldEnd = state.segments[state.segments.count - 1].bytes
        try? FileDescriptor.deallocate(state.activeDescriptor, from: oldEnd, count: state.reserved)
        try? FileCalls.truncate(state.activeDescriptor, to: oldEnd, path: segmentPath(state.segments[state.segments.count - 1].firstSeq))
        FileDescriptor.close(state.activeDescriptor)
        state.activeDescriptor = descriptor
        state.segments.append(SegmentFile(firstSeq: firstSeq, bytes: 0, newestAt: Timestamp.now().seconds))
    }

    /// Allocates `count` bytes from `offset` ahead of the writes; a file system that cannot is written without.
    private static func allocate(_ descriptor: Int32, from offset: Int, count: Int, path: String) throws(JournalError) {
        do {
            try FileDescriptor.allocate(descriptor, from: offset, count: count)
        } catch where error == Errno(EOPNOTSUPP) {
            return
        } catch {
            throw .system(operation: "fallocate", path: path, errno: error)
        }
    }

    /// Drops whole oldest segments, never the one being written.
    private static func enforceRetention(
        _ state: inout State, directory: String, maxBytes: Int, maxAge: TimeInterval
    ) throws(JournalError) {
        let oldestAllowed = Timestamp.now().seconds - maxAge
        var total = state.segments.reduce(0) { $0 + $1.bytes }
        var removed = false
        while state.segments.count > 1, total > maxBytes || state.segments[0].newestAt < oldestAllowed {
            if let kept = state.keptFrom, kept < state.segments[1].firstSeq { break }
            let path = directory + "/" + SegmentFile.name(firstSeq: state.segments[0].firstSeq)
            try FileCalls.remove(path)
            total -= state.segments[0].bytes
            state.segments.removeFirst()
            removed = true
        }
        if removed { try FileCalls.syncDirectory(directory) }
    }
}

extension Journal.Room {
    var usesReservation: Bool {
        if case .use = self { return true }
        return false
    }
}
