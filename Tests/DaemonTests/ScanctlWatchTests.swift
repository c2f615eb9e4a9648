import Foundation
import Glibc
import Testing
import TestSupport

/// `sealtrust-scanctl watch --reconnect` against the built daemon, stopped and started again on the same journal.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ScanctlWatchTests {
    /// What an operator watching a station sees across a restart: every event once, in order, nothing missed.
    @Test func watchReconnectGoesOnAcrossARestartWithEachEventOnce() async throws {
        let first = try ScanDaemon(api: nil).waitUntilListening()
        let directory = first.directory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watcher = try ChildProcess(
            builtProduct("sealtrust-scanctl"), ["--socket", first.socketPath, "watch", "--reconnect"],
            environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TZ": "UTC"])
        defer {
            watcher.signal(SIGKILL)
            watcher.waitForExit(timeout: .seconds(5))
        }
        _ = try await watcher.waitForLine(timeout: .seconds(10)) { $0.hasPrefix("connected to test-station ") }
        #expect(try runProduct("sealtrust-scanctl", ["--socket", first.socketPath, "verify", "before the restart"]).status == 1)
        _ = try await watcher.waitForLine(timeout: .seconds(10)) { $0.contains(" verdict ") }
        #expect(first.terminate() == 0)

        // The next daemon journals a source at its start (a Y4M path still to come), before or after the watcher is
        // back: it comes by replay or live, and once either way.
        let stream = directory + "/later.y4m"
        let second = try ScanDaemon(api: nil, camera: "y4m:\(stream)", directory: directory).waitUntilListening()
        defer { _ = second.terminate() }
        _ = try await watcher.waitForLine(after: 1, timeout: .seconds(15)) { $0.hasPrefix("connected to test-station ") }
        let seenBeforeVerify = watcher.lines.count
        #expect(try runProduct("sealtrust-scanctl", ["--socket", second.socketPath, "verify", "after the restart"]).status == 1)
        _ = try await watcher.waitForLine(after: seenBeforeVerify, timeout: .seconds(10)) { $0.contains(" verdict ") }
        _ = try await watcher.waitForLine(timeout: .seconds(10)) { $0.contains(" source y4m:\(stream) ") }

        let lines = watcher.lines
        let seqs = lines.compactMap { line in line.split(separator: " ").first { $0.hasPrefix("#") }.flatMap { Int($0.dropFirst()) } }
        let firstSeq = try #require(seqs.first)
        #expect(seqs == Array(firstSeq..<firstSeq + seqs.count), "each event once, in order, none missed: \(lines)")
        #expect(lines.filter { $0.contains(" source y4m:\(stream) ") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains(" scan manual ") && $0.hasSuffix("before the restart") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains(" scan manual ") && $0.hasSuffix("after the restart") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains(" verdict ") }.count == 2, "\(lines)")
    }
}
