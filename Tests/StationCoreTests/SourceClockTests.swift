import Foundation
import HandheldScanner
import JSONCore
import ScanJournal
import StationCore
import StationWire
import Synchronization
import Testing
import TestSupport

/// The sources the daemon makes date what they read by the clock it gives them, the one its verdicts are timed by:
/// a verdict's `latency_ms` counts from when its source saw the code, on that one clock.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SourceClockTests {
    /// A keyboard-wedge scanner's recorded keystrokes and a Y4M stream, both regular files that their sources play
    /// once, through a core whose clock stands still an hour ahead of the system's: a read dated by the system's
    /// clock would give its verdict a latency of an hour.
    @Test(.disabled("hangs in about 1 run of 4 alone (a read or its verdict never reaches the events): to find before it runs again"))
    func aHandheldCodeAndAQRCodeAreDatedByTheDaemonsClock() async throws {
        let files = try makeScratchDirectory("source-clock")
        defer { try? FileManager.default.removeItem(atPath: files) }
        var typist = KeyboardTypist(layout: .us)
        try Data(typist.type("HANDHELD-CLOCK-1").records).write(to: URL(fileURLWithPath: files + "/scanner"))
        _ = try runTool("/usr/bin/python3", [repositoryRoot().appendingPathComponent("demo/qr-stream.py").path, files + "/codes.y4m", "QR-CLOCK-1"])
        let scanner = ScannerSpec.evdev(path: files + "/scanner")
        let stream = "y4m:" + files + "/codes.y4m"

        let fixed = ContinuousClock.now + .seconds(3_600)
        let clock = DaemonClock(monotonic: { fixed }, wall: DaemonClock.system.wall)
        let reads = ReadLog()
        try await CoreRig.run(adjusting: { options in
            options.scanners = [scanner]
            options.cameras = [.y4m(files + "/codes.y4m")]
        }, now: clock.monotonic) { rig, events in
            var options = CoreRig.options(directory: rig.directory)
            options.scanners = [scanner]
            options.cameras = [.y4m(files + "/codes.y4m")]
            let sources = StationSources.make(for: options, clock: clock)
            #expect(sources.map(\.name) == ["qr", scanner.id])
            // Each source ends once its file is played.
            let core = rig.core
            await withTaskGroup(of: Void.self) { group in
                for source in sources {
                    group.addTask {
                        await source.run { report in
                            if case .scan(let read) = report { reads.list.withLock { $0.append(read) } }
                            core.receive(report)
                        }
                    }
                }
            }
            for (source, raw) in [(scanner.id, "HANDHELD-CLOCK-1"), (stream, "QR-CLOCK-1")] {
                let (scan, verdict) = try await events.scanAndVerdict(source: source)
                #expect(scan["raw"] == .string(raw))
                #expect(verdict["outcome"] == "not_sealtrust")
                #expect(verdict["latency_ms"] == 0, "from the read to the verdict on the daemon's clock: \(verdict.encoded())")
            }
        }
        #expect(reads.list.withLock { $0.map(\.raw).sorted() } == ["HANDHELD-CLOCK-1", "QR-CLOCK-1"])
        #expect(reads.list.withLock { $0.allSatisfy { $0.readAt == fixed } })
    }
}

/// The reads sources reported, from their threads.
private final class ReadLog: Sendable {
    let list = Mutex<[ScanRead]>([])
}
