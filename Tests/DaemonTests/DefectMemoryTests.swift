import Foundation
import JSONCore
import Testing
import TestSupport

/// Issue 16's reproductions against the built daemon, each ending with the daemon alive and its peak resident
/// memory (VmHWM) under 64 MiB. Each prints its figure (`defect N: peak resident X MiB`) for the issue's table.
/// Defect 5 (a full journal) and defect 10 (mass replay) say theirs in JournalRefusalTests and ReplayLoadTests.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct DefectMemoryTests {
    static let bound = 64 << 20

    @Test func defect1FrameRateOfOneFrameInABillionSeconds() throws {
        try playStream(header: "YUV4MPEG2 W1 H1 F1:1000000000 Cmono\n", frames: 12, frameBytes: 1, defect: "1") { source in
            source["state"]?.string == "removed"
        }
    }

    @Test func defect2AFrameOf16384By16384IsRefusedAtTheHeader() throws {
        try playStream(header: "YUV4MPEG2 W16384 H16384 F25:1 C444alpha\n", frames: 1, frameBytes: 100, defect: "2") { source in
            source["state"]?.string == "error"
        }
    }

    @Test func defect11ALoopOfGarbageFromDevURandom() throws {
        let daemon = try ScanDaemon(api: nil, camera: "y4m:/dev/urandom").waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        try client.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        let errors = try client.collect(timeout: .seconds(20)) { seen in
            seen.filter { $0["type"]?.string == "source" && $0["state"]?.string == "error" }.count >= 2
        }
        #expect(errors.filter { $0["type"]?.string == "source" && $0["state"]?.string == "error" }.count >= 2)
        report(daemon, defect: "11 (/dev/urandom)")
    }

    @Test func defect3And6ALongLineThenFiveMoreWithControlCharactersAllReplay() throws {
        let daemon = try ScanDaemon(api: nil, extra: ["--client-queue", "16384"]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let long = try client.verify(String(repeating: "x", count: 3_000), id: "long")
        let since = try #require(long.scan["seq"]?.integer) - 1
        for index in 0..<5 { _ = try client.verify("x\u{1B}]0;pwned\u{07}\u{1B}[2J\r\n\(index)", id: "short-\(index)") }
        let (replayer, _) = try daemon.connect()
        try replayer.send(.object([("cmd", "replay"), ("since", .int(since)), ("id", "r")]))
        let replayed = try replayer.collect { $0.last?["type"]?.string == "ack" }
        #expect(replayed.filter { $0["type"]?.string == "scan" }.count == 6, "\(replayed.map { $0.encoded() })")
        #expect(!daemon.process.standardError.contains("\u{1B}"), "a control character reached the log")
        report(daemon, defect: "3 and 6")
    }

    @Test func defect4AnAPIDetailOfFiveMegabytes() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/scans/verify", status: 500, body: #"{"code":"INTERNAL","detail":""# + String(repeating: "d", count: 5_000_000) + #""}"#, count: 1)
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let verdict = try client.verify(try mintChipURL("authentic", counter: 10), id: "big").verdict
        #expect(verdict.encoded().utf8.count < 16_384, "the detail is cut")
        let (replayer, _) = try daemon.connect()
        try replayer.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        let replayed = try replayer.collect { $0.last?["type"]?.string == "ack" }
        #expect(replayed.contains { $0["type"]?.string == "verdict" && $0["request_id"]?.string == "big" })
        report(daemon, defect: "4 (5 MB detail)")
    }

    @Test func defect8AnAbsurdRetryAfter() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/scans/verify", status: 429, count: 1, headers: ["Retry-After": "1000000000000"])
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let verdict = try client.verify(try mintChipURL("authentic", counter: 10), id: "limited").verdict
        #expect(verdict["outcome"]?.string != "authentic", "\(verdict.encoded())")
        let capped = try #require(verdict["retry_after_s"]?.integer, "\(verdict.encoded())")
        #expect(capped <= 3_600)
        report(daemon, defect: "8")
    }

    @Test func defect9CraftedJournalFiles() throws {
        let directory = try makeScratchDirectory()
        let journal = directory + "/journal"
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
        try Data(#"{"type":"scan","seq":9223372036854775807,"at":"2026-12-01T12:00:00.000Z"}"#.utf8 + [0x0A])
            .write(to: URL(fileURLWithPath: journal + "/00000000000000000001.jsonl"))
        try Data().write(to: URL(fileURLWithPath: journal + "/18446744073709551615.jsonl"))
        let daemon = try ScanDaemon(api: nil, directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, hello) = try daemon.connect()
        #expect(hello["last_seq"]?.integer != nil)
        let verified = try client.verify("WIFI:S:guest;;", id: "after")
        #expect(verified.verdict["outcome"]?.string == "not_sealtrust")
        report(daemon, defect: "9")
    }

    /// Plays a Y4M stream of `frames` frames (each `frameBytes` bytes) from a file, until its source says `done`.
    private func playStream(header: String, frames: Int, frameBytes: Int, defect: String, done: (JSON) -> Bool) throws {
        let directory = try makeScratchDirectory()
        let stream = directory + "/stream.y4m"
        var bytes = Array(header.utf8)
        for _ in 0..<frames { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 0x80, count: frameBytes) }
        try Data(bytes).write(to: URL(fileURLWithPath: stream))
        let daemon = try ScanDaemon(api: nil, camera: "y4m:\(stream)", directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        try client.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        let source = try client.next(timeout: .seconds(30)) { $0["type"]?.string == "source" && $0["id"]?.string == "y4m:\(stream)" && done($0) }
        #expect(source != nil, "the stream's end or error never came: \(daemon.process.standardError)")
        #expect(kill(daemon.pid, 0) == 0, "the daemon died")
        report(daemon, defect: defect)
    }

    private func report(_ daemon: ScanDaemon, defect: String) {
        let peak = daemon.peakResident()
        print("defect \(defect): peak resident \(String(format: "%.1f", Double(peak) / 1_048_576)) MiB")
        #expect(peak > 0 && peak < Self.bound, "defect \(defect): peak resident \(peak) bytes")
    }
}
