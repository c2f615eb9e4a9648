import JSONCore
import FoundationEssentials
import Glibc
import POSIXSupport
import Synchronization

/// The durable, numbered record of every event the daemon publishes.
///
/// JSON Lines in segment files under one directory; an event is written, then `fdatasync`ed and committed (`append`
/// does both), and only a committed event is counted in `lastSeq`, read back and published: what a client received
/// survives a crash. Retention drops whole oldest segments by total size and by age.
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
        /// The line written and not yet committed.
        var written: Written?
        /// `close` came while a line was written and not committed: the commit closes.
        var closing = false
        /// Retention keeps the segment starting here and every later one (`keep(from:)`).
        var keptFrom: UInt64?
    }

    /// What undoing a written line restores.
    private struct Written {
        let seq: UInt64
        /// The active segment's size before the line.
        let start: Int
        let reservedBefore: Int
        let newestAtBefore: Double
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
    /// Takes `append`s from several threads one at a time; held across no call out of the journal.
    private let appendOrder = Mutex(())
    private let clock: DaemonClock
    /// Runs before each fdatasync, on the committing thread, with no lock held: a test holds an fdatasync there, as a
    /// slow disk would.
    private let beforeSync: @Sendable () -> Void

    /// A journal that does not make sense (a segment whose name is no seq, a last seq outside its
    /// segment's range) is set aside (renamed `NAME.aside-TIME`) and said in `recoveryNote`; seqs go on
    /// after the highest the set-aside file may have given out, so none is reused.
    public init(
        path: String, maxBytes: Int = 268_435_456, maxAge: TimeInterval = 90 * 86_400, segmentBytes: Int? = nil,
        clock: DaemonClock = .system, warn: @escaping @Sendable (String) -> Void = { _ in },
        beforeSync: @escaping @Sendable () -> Void = {}
    ) throws {
        self.directory = path
        self.maxBytes = max(1, maxBytes)
        self.maxAge = maxAge
        self.segmentBytes = segmentBytes ?? min(16 << 20, max(64 << 10, maxBytes / 8))
        self.warn = warn
        self.clock = clock
        self.beforeSync = beforeSync
        try FileCalls.makeDirectories(path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var notes: [String] = []
        var firstSeqs: [UInt64] = []
        for name in names.sorted() {
            guard let firstSeq = SegmentFile.firstSeq(fromName: name) else { continue }
            if Journal.seqs.contains(firstSeq) {
                firstSeqs.append(firstSeq)
            } else {
                notes.append(try FileCalls.setAside(path + "/" + name, because: "its name is no seq", at: clock.wall().seconds))
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
                notes.append(try FileCalls.setAside(activePath, because: "its last seq \(last) cannot be in it", at: clock.wall().seconds))
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
        try removeExpired(state.withLock { state in
            Journal.takeExpired(&state, maxBytes: self.maxBytes, maxAge: maxAge, now: clock.wall().seconds)
        })
    }

    deinit {
        close()
    }

    /// The last event made durable. Read under the state's lock, which no fdatasync holds: `hello` and `status` never
    /// wait for the disk.
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

    /// Adds `type`, `seq` and `at` first, then `fields`; durable before it returns. Appends from several threads are
    /// taken one at a time.
    ///
    /// `room`: see `Room`. A file system that cannot allocate ahead (EOPNOTSUPP) keeps no room, and writes as before.
    public func append(type: String, fields: [(String, JSON)], room: Room = .none) throws -> JournaledEvent {
        try appendOrder.withLock { _ in
            try commit(write(type: type, fields: fields, room: room), keepingIfUnsynced: false)
        }
    }

    /// The first of an append's two steps: writes the event's line, not yet durable nor counted in `lastSeq`. One
    /// write at a time: the next one waits for this one's `commit`, which its caller owes. What may start once the
    /// line is written (a scan's API call) starts between the two steps, with no lock of the journal's held.
    ///
    /// `room`: see `Room`.
    public func write(type: String, fields: [(String, JSON)], room: Room = .none) throws(JournalError) -> WrittenEvent {
        let line = try state.withLock { state throws(JournalError) -> PendingLine in
            if case .use(let bytes) = room { state.reserved = max(0, state.reserved - bytes) }
            guard state.activeDescriptor >= 0, !state.closing else { throw .closed }
            precondition(state.written == nil, "a journal write before the last one was committed")
            let seq = state.lastSeq + 1
            let now = clock.wall()
            let event = JSON.object([("type", .string(type)), ("seq", .int(Int64(seq))), ("at", .string(now.text))] + fields)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256)
            event.encoded(into: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            bytes.append(0x0A)
            let kept: Int
            switch room {
            case .none, .use: kept = state.reserved
            case .reserve(let extra): kept = state.reserved + extra
            }
            // The promised event goes into its room, never into a new segment that would need room of its own.
            let startsSegment = state.segments[state.segments.count - 1].bytes >= segmentBytes && !room.usesReservation
            return PendingLine(seq: seq, at: now.seconds, text: text, bytes: bytes, kept: kept,
                               segmentKeeping: startsSegment ? (state.reserved > 0 ? kept + bytes.count : 0) : nil)
        }
        // The writer is alone until its commit: the new segment is opened and synced into the directory with no lock
        // held, and nothing else changes the segments meanwhile.
        let next = try line.segmentKeeping.map { keeping throws(JournalError) in try openSegment(firstSeq: line.seq, keeping: keeping) }
        return try state.withLock { state throws(JournalError) -> WrittenEvent in
            if let next {
                guard state.activeDescriptor >= 0, !state.closing else {
                    FileDescriptor.close(next)
                    throw .closed
                }
                switchSegment(&state, to: next, firstSeq: line.seq, at: line.at)
            }
            let active = state.segments.count - 1
            let activePath = segmentPath(state.segments[active].firstSeq)
            if room.usesReservation {
                // Written into its room whatever the allocation says: a line larger than its room may still fit.
                try? Self.allocate(state.activeDescriptor, from: state.segments[active].bytes, count: line.bytes.count + line.kept,
                                   path: activePath)
            } else if line.kept > 0 {
                try Self.allocate(state.activeDescriptor, from: state.segments[active].bytes, count: line.bytes.count + line.kept,
                                  path: activePath)
            }
            let written = Written(seq: line.seq, start: state.segments[active].bytes, reservedBefore: state.reserved,
                                  newestAtBefore: state.segments[active].newestAt)
            do throws(JournalError) {
                try FileCalls.writeAll(state.activeDescriptor, line.bytes, path: activePath)
            } catch {
                Self.undo(written, in: &state, path: activePath)
                throw error
            }
            state.written = written
            state.reserved = line.kept
            state.segments[active].bytes += line.bytes.count
            state.segments[active].newestAt = line.at
            return WrittenEvent(event: JournaledEvent(seq: line.seq, type: type, line: line.text), descriptor: state.activeDescriptor,
                                path: activePath)
        }
    }

    /// A line made and not yet written. `segmentKeeping`: it starts a new segment with that many bytes allocated.
    private struct PendingLine {
        let seq: UInt64
        let at: Double
        let text: String
        let bytes: [UInt8]
        let kept: Int
        let segmentKeeping: Int?
    }

    /// The second step: fdatasyncs the written line, with none of the journal's locks held, then counts it in
    /// `lastSeq` and applies retention. A failed fdatasync undoes the line and throws; with `keepingIfUnsynced` (what
    /// followed its write has started: a scan's API call) it keeps the line, which must be published, and throws
    /// `UnsyncedAppend`.
    @discardableResult
    public func commit(_ written: WrittenEvent, keepingIfUnsynced: Bool) throws -> JournaledEvent {
        beforeSync()
        var syncFailure: JournalError?
        do throws(JournalError) {
            try FileCalls.syncData(written.descriptor, path: written.path)
        } catch {
            syncFailure = error
        }
        let expired = try state.withLock { state throws(JournalError) -> [SegmentFile] in
            guard let pending = state.written, pending.seq == written.event.seq else {
                preconditionFailure("a journal commit of a line not written")
            }
            state.written = nil
            defer { if state.closing { closeActive(&state) } }
            if let syncFailure, !keepingIfUnsynced {
                Self.undo(pending, in: &state, path: written.path)
                throw syncFailure
            }
            state.lastSeq = pending.seq
            return Self.takeExpired(&state, maxBytes: maxBytes, maxAge: maxAge, now: clock.wall().seconds)
        }
        // The event is durable (or its consequence is out) and must be published: a segment retention cannot remove now
        // (a read-only directory) is said once, and removed at a later append.
        do throws(JournalError) {
            try removeExpired(expired)
        } catch {
            let isNew = state.withLock { $0.reportedPlaces.insert("retention").inserted }
            if isNew { warn("journal: retention: \(error); tried again at each append") }
        }
        if let syncFailure { throw UnsyncedAppend(event: written.event, failure: syncFailure) }
        return written.event
    }

    /// Cuts off a line that failed, in the active segment; the room kept for others is allocated again (the cut may
    /// free it).
    private static func undo(_ written: Written, in state: inout State, path: String) {
        let active = state.segments.count - 1
        try? FileCalls.truncate(state.activeDescriptor, to: written.start, path: path)
        state.segments[active].bytes = written.start
        state.segments[active].newestAt = written.newestAtBefore
        state.reserved = written.reservedBefore
        if state.reserved > 0 { try? allocate(state.activeDescriptor, from: written.start, count: state.reserved, path: path) }
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

    /// Stops appends; later calls of `append` and `write` throw `closed`. A line written and not committed keeps its
    /// descriptor until its commit.
    public func close() {
        state.withLock { state in
            if state.written == nil { closeActive(&state) } else { state.closing = true }
        }
    }

    private func closeActive(_ state: inout State) {
        if state.activeDescriptor >= 0 {
            FileDescriptor.close(state.activeDescriptor)
            state.activeDescriptor = -1
        }
    }

    func segmentPath(_ firstSeq: UInt64) -> String {
        directory + "/" + SegmentFile.name(firstSeq: firstSeq)
    }

    /// The first seqs of the segments now on disk, oldest first.
    func segmentFirstSeqs() -> [UInt64] {
        state.withLock { $0.segments.map(\.firstSeq) }
    }

    /// The seqs a segment's lines can hold: below the next segment's name, or up to the last committed; `isActive`:
    /// the segment is the one written, whose next line may be written and not committed yet.
    func seqLimit(ofSegment firstSeq: UInt64) -> (limit: UInt64, isActive: Bool) {
        state.withLock { state in
            guard let next = state.segments.first(where: { $0.firstSeq > firstSeq }) else { return (state.lastSeq, true) }
            return (next.firstSeq - 1, false)
        }
    }

    /// Says once where a reader met a line it had to pass over (`place`: the file and offset).
    func warnOnce(at place: String, _ problem: String) {
        let isNew = state.withLock { $0.reportedPlaces.insert(place).inserted }
        if isNew { warn("journal: \(place): \(problem); passed over") }
    }

    /// Opens the segment that starts at `firstSeq` with `keeping` bytes allocated in it (the event about to be written
    /// and the room kept), synced into the directory; or throws, and leaves no file.
    private func openSegment(firstSeq: UInt64, keeping: Int) throws(JournalError) -> Int32 {
        let path = segmentPath(firstSeq)
        let descriptor = try FileCalls.open(path, O_RDWR | O_CREAT | O_APPEND)
        do throws(JournalError) {
            if keeping > 0 { try Self.allocate(descriptor, from: 0, count: keeping, path: path) }
            try FileCalls.syncDirectory(directory)
        } catch {
            FileDescriptor.close(descriptor)
            try? FileSystem.remove(path)
            throw error
        }
        return descriptor
    }

    /// Makes the opened segment the active one; the room allocated past the old one's end is freed.
    private func switchSegment(_ state: inout State, to descriptor: Int32, firstSeq: UInt64, at seconds: Double) {
        // Freed both ways: tmpfs frees a hole punched past the end, ext4 what a truncation to the end leaves past it.
        let oldEnd = state.segments[state.segments.count - 1].bytes
        try? FileDescriptor.deallocate(state.activeDescriptor, from: oldEnd, count: state.reserved)
        try? FileCalls.truncate(state.activeDescriptor, to: oldEnd, path: segmentPath(state.segments[state.segments.count - 1].firstSeq))
        FileDescriptor.close(state.activeDescriptor)
        state.activeDescriptor = descriptor
        state.segments.append(SegmentFile(firstSeq: firstSeq, bytes: 0, newestAt: seconds))
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

    /// Takes out of `state` the whole oldest segments retention drops, never the one being written, oldest first:
    /// readers no longer look for them, and `removeExpired` removes their files with no lock held.
    private static func takeExpired(_ state: inout State, maxBytes: Int, maxAge: TimeInterval, now: Double) -> [SegmentFile] {
        let oldestAllowed = now - maxAge
        var total = state.segments.reduce(0) { $0 + $1.bytes }
        var expired: [SegmentFile] = []
        while state.segments.count > 1, total > maxBytes || state.segments[0].newestAt < oldestAllowed {
            if let kept = state.keptFrom, kept < state.segments[1].firstSeq { break }
            total -= state.segments[0].bytes
            expired.append(state.segments.removeFirst())
        }
        return expired
    }

    /// Removes the files of `expired`, oldest first, then syncs the directory; those it could not remove are given back
    /// to the state, to be tried again at the next commit.
    private func removeExpired(_ expired: [SegmentFile]) throws(JournalError) {
        guard !expired.isEmpty else { return }
        for (index, segment) in expired.enumerated() {
            do throws(JournalError) {
                try FileCalls.remove(segmentPath(segment.firstSeq))
            } catch {
                state.withLock { $0.segments.insert(contentsOf: expired[index...], at: 0) }
                throw error
            }
        }
        try FileCalls.syncDirectory(directory)
    }
}

extension Journal.Room {
    var usesReservation: Bool {
        if case .use = self { return true }
        return false
    }
}
