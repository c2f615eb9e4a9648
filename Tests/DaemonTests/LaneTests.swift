import Foundation
import Glibc
import JSONCore
import Testing
import TestSupport

/// Lanes on the built daemon (issue 44): two cameras, each a Y4M stream of printed codes in a lane of its own, as a
/// dock's two lanes; `sealtrust-scanctl watch --lane` and `replay --lane` show one lane's events.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LaneTests {
    func writeStream(_ payloads: [String], to path: String) throws {
        // Written aside, then moved in place: the daemon, which waits for the path, reads a whole stream.
        try runTool("/usr/bin/python3", [repositoryRoot().appendingPathComponent("demo/qr-stream.py").path, path + ".partial"] + payloads)
        try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
    }

    @Test func eachCamerasEventsCarryItsLaneAndWatchLaneShowsOneLane() async throws {
        let directory = try makeScratchDirectory()
        let dock1 = directory + "/dock1.y4m"
        let dock2 = directory + "/dock2.y4m"
        let daemon = try ScanDaemon(api: nil, camera: "y4m:\(dock1)", extra: [
            "--camera", "y4m:\(dock2)", "--lane", "dock1=y4m:\(dock1)", "--lane", "dock2=y4m:\(dock2)",
        ], directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, hello) = try daemon.connect()
        #expect(hello["lanes"] == .array(["dock1", "dock2"]))

        let watcher = try ChildProcess(
            builtProduct("sealtrust-scanctl"), ["--socket", daemon.socketPath, "watch", "--lane", "dock1"],
            environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TZ": "UTC"])
        defer {
            watcher.signal(SIGKILL)
            watcher.waitForExit(timeout: .seconds(5))
        }
        _ = try await watcher.waitForLine(timeout: .seconds(10)) { $0.hasPrefix("connected to test-station ") }

        // Dock 2 first, to its end: everything it journals comes before dock 1's first event.
        let isVerdict = { (message: JSON) in message["type"]?.string == "verdict" }
        let isEnd = { (message: JSON) in message["type"]?.string == "source" && message["state"]?.string == "removed" }
        try writeStream(["carton 2-1"], to: dock2)
        let second = try client.collect(timeout: .seconds(30)) { $0.contains(where: isVerdict) && $0.contains(where: isEnd) }
        try writeStream(["carton 1-1"], to: dock1)
        let first = try client.collect(timeout: .seconds(30)) { $0.contains(where: isVerdict) && $0.contains(where: isEnd) }

        // Every journaled event of a lane's source carries its lane: source states, the scan, the verdict (which names
        // its scan's source too).
        let laneOfSource = ["y4m:\(dock1)": "dock1", "y4m:\(dock2)": "dock2"]
        let journaled = (second + first).filter { $0["seq"] != nil }
        #expect(journaled.allSatisfy { event in
            (event["source"] ?? event["id"])?.string.flatMap { laneOfSource[$0] } == event["lane"]?.string
        }, "\(journaled.map { $0.encoded() })")
        for (events, lane) in [(second, "dock2"), (first, "dock1")] {
            #expect(events.filter { $0["type"]?.string == "scan" }.map { $0["lane"]?.string } == [lane])
            #expect(events.first(where: isVerdict)?["lane"]?.string == lane)
            #expect(events.first(where: isVerdict)?["outcome"]?.string == "not_sealtrust")
        }

        // The watcher shows dock 1's scan and verdict, and none of dock 2's, which came before them.
        _ = try await watcher.waitForLine(timeout: .seconds(10)) { $0.contains(" verdict [dock1] ") }
        let shown = watcher.lines.dropFirst()
        #expect(shown.contains { $0.contains(" scan [dock1] y4m:\(dock1) ") && $0.hasSuffix("carton 1-1") }, "\(shown)")
        #expect(shown.allSatisfy { $0.contains(" [dock1] ") }, "only dock 1: \(shown)")

        // replay --lane: the journal's events of that lane alone.
        let replayed = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "replay", "--since", "0", "--no-follow",
                                                            "--lane", "dock2", "--json"])
        #expect(replayed.status == 0, "\(replayed.errors)")
        let lines = replayed.output.split(separator: "\n").compactMap { try? JSON.parse(utf8: Array($0.utf8)) }.filter { $0["seq"] != nil }
        #expect(lines.allSatisfy { $0["lane"]?.string == "dock2" }, "\(replayed.output)")
        #expect(lines.filter { $0["type"]?.string == "scan" }.map { $0["raw"]?.string } == ["carton 2-1"])

        // status: each lane's sources and counts.
        let status = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "status", "--json"])
        let lanes = try JSON.parse(utf8: Array(status.output.utf8))["lanes"]?.arrayValue ?? []
        #expect(lanes.map { $0["name"]?.string } == ["dock1", "dock2"])
        #expect(lanes.allSatisfy { $0["counters"]?["scans"]?.integerValue == 1 }, "\(status.output)")
        #expect(lanes.first?["sources"] == .array([.string("y4m:\(dock1)")]))
        let text = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "status"]).output
        let lanesLine = text.split(separator: "\n").first { $0.hasPrefix("lanes: ") }
        #expect(lanesLine?.hasPrefix("lanes: (name dock1, ") == true && lanesLine?.contains("(name dock2, ") == true, "\(text)")
    }

    /// A lane the daemon does not have would show nothing for ever: scanctl says so, with the lanes it has.
    @Test func watchingALaneTheDaemonDoesNotHaveIsRefused() throws {
        let daemon = try ScanDaemon(api: nil, extra: ["--scanner", "serial:/dev/ttyS9", "--lane", "dock1=serial:/dev/ttyS9"])
            .waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let run = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "watch", "--lane", "dock9"])
        #expect(run.status == 2 && run.errors.contains("the daemon has no lane dock9 (its lanes: dock1)"), "\(run.errors)")
        let bad = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "watch", "--lane", "dock 1"])
        #expect(bad.status == 2 && bad.errors.contains("--lane: a lane's name is 1 to 32 letters"), "\(bad.errors)")
    }

    /// `--check-config` refuses a source in two lanes and a lane naming no source, with the file's line.
    @Test func checkConfigRefusesASourceInTwoLanesAndALaneWithoutSources() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/scand.conf"
        let base = "socket = \(directory)/scand.sock\njournal = \(directory)/journal\ncamera = y4m:a.y4m\n"
        try (base + "lane dock1 = y4m:a.y4m\nlane dock2 = y4m:a.y4m\n").write(toFile: config, atomically: true, encoding: .utf8)
        let twice = try runProduct("sealtrust-scand", ["--config", config, "--check-config"])
        #expect(twice.status == 2 && twice.errors.contains("\(config):5: bad value") && twice.errors.contains(
            "y4m:\(directory)/a.y4m is already in lane dock1: a source belongs to one lane at most"), "\(twice.errors)")
        try (base + "lane dock1 =\n").write(toFile: config, atomically: true, encoding: .utf8)
        let empty = try runProduct("sealtrust-scand", ["--config", config, "--check-config"])
        #expect(empty.status == 2 && empty.errors.contains("\(config):4: bad value") && empty.errors.contains("lane dock1 names no source"),
                "\(empty.errors)")
        try (base + "lane dock1 = y4m:a.y4m\n").write(toFile: config, atomically: true, encoding: .utf8)
        let good = try runProduct("sealtrust-scand", ["--config", config, "--check-config"])
        #expect(good.status == 0 && good.output.contains("configuration ok"), "\(good.errors)")
    }
}
