import Foundation
import Glibc
import JSONCore
import POSIXSupport
import Synchronization
import Testing
import TestSupport

/// Mass replay against the live path (issue 16, defect 10): 50 clients replaying 250,000 events at once once made a
/// live verify's round trip take 7.6 s. The server now caps replay work per turn of its loop and shares it in turn.
///
/// Longer than most tests (about 15 s: a 75 MB journal written, 20 live verifies under load), as the issue demands.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ReplayLoadTests {
    static let events = 250_000
    static let replayers = 50
    static let liveVerifies = 20

    @Test func fiftyReplaysOf250000EventsLeaveALiveVerifyUnderASecond() async throws {
        let directory = try makeScratchDirectory("sealtrust-replay-load", in: memoryBackedFolder)
        let journalBytes = try writeJournal(directory + "/journal", events: Self.events)
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api, directory: directory).waitUntilListening(timeout: .seconds(60))
        defer { _ = daemon.terminate(); daemon.removeDirectory() }

        let (live, hello) = try daemon.connect()
        #expect(hello["last_seq"]?.integer == Int64(Self.events))
        try live.send(.object([("cmd", "watch"), ("events", []), ("id", "quiet")]))
        _ = try live.next { $0["type"]?.string == "ack" }
        var replaying: [LineClient] = []
        for index in 0..<Self.replayers {
            let (client, _) = try daemon.connect()
            try client.send(.object([("cmd", "replay"), ("since", 0), ("id", .int(Int64(index)))]))
            replaying.append(client)
        }
        let drain = Drain(replaying.map(\.descriptor))
        // Under way for every replayer before the first live verify.
        let underWay = ContinuousClock.now + .seconds(30)
        while drain.received().min()! < 65_536 && ContinuousClock.now < underWay { usleep(5_000) }
        #expect(drain.received().min()! >= 65_536, "some replays never started")

        var roundTrips: [Duration] = []
        for index in 0..<Self.liveVerifies {
            let start = ContinuousClock.now
            let verified = try live.verify("https://sealtrust.io/p/SN-00042", id: "live-\(index)")
            roundTrips.append(.now - start)
            #expect(verified.verdict["outcome"]?.string == "identified", "\(verified.verdict.encoded())")
        }
        let received = drain.stop()
        roundTrips.sort()
        let median = roundTrips[roundTrips.count / 2]
        let slowest = roundTrips.last!
        print("replay load: live verify round trip p50 \(median.wholeMilliseconds) ms, max \(slowest.wholeMilliseconds) ms; "
              + "replayed per client \(received.min()! >> 20)-\(received.max()! >> 20) MiB of \(journalBytes >> 20) MiB")
        #expect(received.contains { $0 < journalBytes }, "every replay ended before the live verifies: nothing was measured under load")
        #expect(slowest < .seconds(1), "live verify round trips: \(roundTrips.map(\.wholeMilliseconds)) ms")
        let peak = daemon.peakResident()
        print("defect 10: peak resident \(String(format: "%.1f", Double(peak) / 1_048_576)) MiB")
        #expect(peak > 0 && peak < 64 << 20, "defect 10: peak resident \(peak) bytes")
    }

    /// Segments of 50,000 events as the journal writes them (seq on each line, in order), written whole: appending
    /// 250,000 events one by one with fdatasync would take minutes. Returns the bytes written.
    private func writeJournal(_ path: String, events: Int) throws -> Int {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let perSegment = 50_000
        var total = 0
        for firstSeq in stride(from: 1, through: events, by: perSegment) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(perSegment * 320)
            for seq in firstSeq..<min(firstSeq + perSegment, events + 1) {
                let line = #"{"type":"verdict","seq":\#(seq),"at":"2026-12-01T12:00:00.000Z","scan_id":"0b7f3c52-5a1d-4f55-9b6e-\#(String(seq, radix: 16))","source":"nfc:Virtual PCD 00 00","medium":"nfc","outcome":"authentic","message":"Authentic product.","product_name":"Chronograph 42","brand":"Maison Exemple","latency_ms":212}"#
                bytes += line.utf8
                bytes.append(0x0A)
            }
            let name = String(repeating: "0", count: 20 - String(firstSeq).count) + String(firstSeq) + ".jsonl"
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
            total += bytes.count
        }
        return total
    }
}

/// Reads and drops what the replaying clients receive, on a thread of its own (poll over their sockets), counting
/// the bytes of each.
private final class Drain: Sendable {
    private let descriptors: [Int32]
    private let counts: Mutex<[Int]>
    private let stopping = Atomic(false)
    private let finished = ThreadSignal()

    init(_ descriptors: [Int32]) {
        self.descriptors = descriptors
        counts = Mutex([Int](repeating: 0, count: descriptors.count))
        OSThread.start(name: "replay-drain") { [self] in
            var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var buffer = [UInt8](repeating: 0, count: 262_144)
            while !stopping.load(ordering: .relaxed) {
                guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
                for index in polled.indices where polled[index].revents != 0 {
                    let count = recv(polled[index].fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count > 0 {
                        counts.withLock { $0[index] += count }
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        polled[index].fd = -1
                    }
                }
            }
            finished.signal()
        }
    }

    func received() -> [Int] { counts.withLock { $0 } }

    /// Stops reading and returns what each client received.
    func stop() -> [Int] {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        return received()
    }
}
