import Foundation
import Glibc
import HandheldScanner
import ScannerDevices
import Synchronization
import Testing
import TestSupport

/// The keyboard-wedge source over real descriptors: a FIFO of records and a regular file. The serial source is
/// tested through the daemon over a real pty (DaemonTests/ScannerTests.swift): two pty tests in one process at
/// once interfered with each other under parallel runs.
@Suite(.timeLimit(.minutes(1)))
struct ScannerSourceTests {
    /// Reads events until `enough` says so, in a task the test can wait on with a deadline.
    final class Listener: @unchecked Sendable {
        private var iterator: AsyncStream<ScannerEvent>.AsyncIterator
        private(set) var seen: [ScannerEvent] = []

        init(_ source: HandheldScannerSource) {
            iterator = source.events().makeAsyncIterator()
        }

        /// The next event that matches, within 10 s; the events before it are kept in `seen`.
        func next(where matches: (ScannerEvent) -> Bool) async -> ScannerEvent? {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                guard let event = await iterator.next() else { return nil }
                seen.append(event)
                if matches(event) { return event }
            }
            return nil
        }
    }

    func scratchDirectory() throws -> String {
        try makeScratchDirectory("scanner-test")
    }

    static func isCode(_ event: ScannerEvent) -> Bool { if case .code = event { true } else { false } }
    static func isFailure(_ event: ScannerEvent) -> Bool { if case .failure = event { true } else { false } }
    static func isReady(_ event: ScannerEvent) -> Bool { if case .ready = event { true } else { false } }
    static func isRemoved(_ event: ScannerEvent) -> Bool { if case .removed = event { true } else { false } }

    @Test func aFIFOsRecordsGiveCodesAndSilenceEndsAPartialOne() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/scanner.events"
        let listener = Listener(HandheldScannerSource(spec: .evdev(path: path), keymap: .de))
        #expect(await listener.next { _ in true } == .absent(detail: "no such device yet"))
        #expect(mkfifo(path, 0o600) == 0)
        #expect(await listener.next(where: Self.isReady) == .ready(detail: "input_event records from a FIFO"))
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        var typist = KeyboardTypist(layout: .de)
        let records = (typist.type("https://sealtrust.io/p/SN-1") + typist.type("halb", terminator: nil)).records
        #expect(records.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == records.count)
        #expect(await listener.next(where: Self.isCode) == .code("https://sealtrust.io/p/SN-1"))
        let started = ContinuousClock.now
        let failure = await listener.next(where: Self.isFailure)
        #expect(failure == .failure(ScannerReadFailure(.incomplete, "the code stopped after 4 characters without Enter or Tab")))
        #expect(ContinuousClock.now - started < .seconds(2), "the trailing gap is noticed by a timer, not at the stream's end")
        close(writer)
        #expect(await listener.next(where: Self.isRemoved) == .removed(detail: "end of stream"))
        #expect(await listener.next(where: Self.isReady) != nil, "the FIFO is opened again for its next writer")
    }

    @Test func aRegularFileIsPlayedOnceAndTheSameCodeTwiceIsOneScan() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var typist = KeyboardTypist(layout: .us)
        let records = (typist.type("SAME") + typist.type("SAME") + typist.type("OTHER")).records
        try Data(records).write(to: URL(fileURLWithPath: directory + "/recorded"))
        var events: [ScannerEvent] = []
        for await event in HandheldScannerSource(spec: .evdev(path: directory + "/recorded")).events() { events.append(event) }
        #expect(events == [.ready(detail: "input_event records from a file"), .code("SAME"), .code("OTHER"), .removed(detail: "end of stream")])
    }

    /// The source dates each event by the clock it is given (the daemon's, so that a code's `readAt` and its verdict
    /// are on one clock), and a repeat's window is on that clock too: here it steps 3 s at each reading, past the
    /// 2 s window, so the same code twice is two scans.
    @Test func aSourceDatesItsEventsAndSpacesRepeatsByTheClockItIsGiven() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var typist = KeyboardTypist(layout: .us)
        let records = (typist.type("SAME") + typist.type("SAME")).records
        try Data(records).write(to: URL(fileURLWithPath: directory + "/recorded"))
        let start = ContinuousClock.now + .seconds(3_600)
        let readings = Mutex(0)
        let clock: @Sendable () -> ContinuousClock.Instant = {
            readings.withLock { count in
                defer { count += 1 }
                return start + .seconds(3 * count)
            }
        }
        let seen = Mutex<[(ScannerEvent, ContinuousClock.Instant)]>([])
        await HandheldScannerSource(spec: .evdev(path: directory + "/recorded"), rescanAfter: .seconds(2), now: clock).run { event, at in
            seen.withLock { $0.append((event, at)) }
        }
        let events = seen.withLock { $0 }
        #expect(events.map(\.0) == [.ready(detail: "input_event records from a file"), .code("SAME"), .code("SAME"), .removed(detail: "end of stream")])
        #expect(events.map(\.1) == (0..<4).map { start + .seconds(3 * $0) }, "each event dated by the clock given, once")
    }
}
