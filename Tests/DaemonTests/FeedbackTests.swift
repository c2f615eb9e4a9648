import Foundation
import JSONCore
import Testing
import TestSupport

/// The reader's LED and buzzer (`--feedback auto`): vpcd passes ACS's class `FF` commands through to vtag, which
/// records each one. In the NFC suite, which owns the virtual reader.
extension NFCTests {
    static let detectionBeepOff = "FF00520000"
    static let accepted = "FF0040AE0401010101"
    static let alarm = "FF00405D0402020301"
    static let caution = "FF0040FF0401010201"
    static let informational = "FF0040EF0408080101"

    /// Waits for the tag's report of a class `FF` command after `mark`, and returns it with its answer.
    func pseudoCommand(_ tag: VirtualTag, after mark: Int) async throws -> String {
        let line = try await tag.waitForLine(after: mark) { $0.hasPrefix("PSEUDO FF0040") }
        return String(line.dropFirst("PSEUDO ".count))
    }

    /// Presents the tag, waits for its verdict and for the LED and buzzer command, then takes the tag away.
    func tapAndWatchTheReader(_ tag: VirtualTag, watcher: LineClient) async throws -> (outcome: String?, command: String) {
        let mark = tag.transcript.count
        try await tag.present()
        let verdict = try awaitVerdict(watcher).verdict
        let command = try await pseudoCommand(tag, after: mark)
        try await tag.remove()
        let lines = Array(tag.transcript.dropFirst(mark))
        let read = lines.firstIndex { $0.hasPrefix("READ ctr=") }
        let shown = lines.firstIndex { $0.hasPrefix("PSEUDO FF0040") }
        #expect(read != nil && shown != nil && read! < shown!, "the LED and buzzer come after the read: \(lines)")
        return (verdict["outcome"]?.string, command)
    }

    @Test func eachVerdictClassLightsAndSoundsTheReader() async throws {
        try await withReaderStation(chip: "authentic") { station in
            let (tag, watcher) = (station.tag, station.watcher)

            let authentic = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(authentic.outcome == "authentic")
            #expect(authentic.command == "\(Self.accepted) -> 9000", "green and one short beep")
            #expect(tag.pseudoAPDUs().first == Self.detectionBeepOff,
                    "the detection beep goes off before any verdict is shown (vpcd takes no direct command at attach)")

            try await tag.set(counter: 0)
            let replay = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(replay.outcome == "replay")
            #expect(replay.command == "\(Self.alarm) -> 9000", "red blinking and three beeps")

            try await tag.set(chip: "stolen")
            let stolen = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(stolen.outcome == "authentic")
            #expect(stolen.command == "\(Self.alarm) -> 9000", "a theft report alarms, even on an authentic chip")

            try await tag.set(chip: "seal-opened-degrade")
            let degraded = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(degraded.outcome == "authentic")
            #expect(degraded.command == "\(Self.informational) -> 9000",
                    "an opened seal the brand asks to trust less is never the plain good signal")

            try await tag.set(chip: "seal-opened")
            let opened = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(opened.command == "\(Self.accepted) -> 9000", "an opened seal under inform is still authentic's signal")

            try await tag.set(chip: "never-registered")
            let unknown = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(unknown.outcome == "never_registered")
            #expect(unknown.command == "\(Self.caution) -> 9000", "orange and two beeps")
            #expect(tag.pseudoAPDUs().filter { $0 == Self.detectionBeepOff }.count == 1, "the detection beep is turned off once")
        }
    }

    @Test func theDetectionBeepIsTurnedOffAtAttach() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let tag = try VirtualTag.start(reader: 1, chip: "spare-a")
        defer { tag.stop() }
        try await tag.present()  // in the field as the daemon starts: the beep goes off through it
        let daemon = try ScanDaemon(api: api, nfc: Self.reader).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        _ = try await tag.waitForLine { $0 == "PSEUDO \(Self.detectionBeepOff) -> 9000" }
        _ = try await tag.waitForLine { $0.hasPrefix("PSEUDO FF0040") }
        let lines = tag.transcript
        let beepOff = lines.firstIndex { $0.hasPrefix("PSEUDO \(Self.detectionBeepOff)") }
        let firstRead = lines.firstIndex { $0.hasPrefix("READ ctr=") }
        #expect(beepOff != nil && firstRead != nil && beepOff! < firstRead!, "the beep is off before the first read: \(lines)")
        try await tag.remove()
    }

    @Test func aReaderThatRefusesStillReadsTheNextTag() async throws {
        try await withReaderStation(chip: "spare-b", prepare: { try await $0.set(pseudoAPDUs: false) }) { station in
            let (tag, daemon, watcher) = (station.tag, station.daemon, station.watcher)

            let mark = tag.transcript.count
            try await tag.present()
            #expect(try awaitVerdict(watcher).verdict["outcome"]?.string == "authentic")
            _ = try await tag.waitForLine(after: mark) { $0.hasPrefix("PSEUDO ") && $0.hasSuffix("-> 6A81") }
            try await tag.remove()
            let refusals = tag.pseudoAPDUs().count

            for _ in 0 ..< 2 {
                let next = try await tap(tag, watcher: watcher)
                #expect(next.verdict["outcome"]?.string == "authentic", "the reader still reads every tag")
            }
            try await tag.settle()
            #expect(tag.pseudoAPDUs().count == refusals, "a reader that refused is left alone")
            #expect(daemon.process.standardError.contains("reader feedback off on \(Self.reader): it answered 6A 81"))
            #expect(!daemon.process.standardError.contains(": error: "))
        }
    }

    @Test func aTagRemovedBeforeTheVerdictLeavesNoError() async throws {
        try await withReaderStation(chip: "spare-a") { station in
            let (api, tag, daemon, watcher) = (station.api, station.tag, station.daemon, station.watcher)

            try await api.fault(path: "/scans/verify", delay: 1, count: 1)
            let mark = tag.transcript.count
            try await tag.present()
            // Removed once the daemon has the whole URI (its scan), while the call is out: before the verdict, not
            // during the read (the tag's line for the signed read comes before the daemon has read all of it).
            var seen: [JSON] = []
            let scan = try #require(try watcher.next(timeout: .seconds(20), seen: &seen) { $0["type"]?.string == "scan" },
                                    "no scan after a tap; saw \(seen.map { $0.encoded() })")
            try await tag.remove()
            let verdict = try #require(try watcher.next(timeout: .seconds(20), seen: &seen) {
                $0["type"]?.string == "verdict" && $0["scan_id"] == scan["scan_id"]
            }, "no verdict; saw \(seen.map { $0.encoded() })")
            #expect(verdict["outcome"]?.string == "authentic")
            // vpcd takes no direct command: the signal is skipped with a debug line, and no error.
            let skipped = "reader feedback skipped on \(Self.reader)"
            let deadline = ContinuousClock.now + .seconds(10)
            while !daemon.process.standardError.contains(skipped) && tag.pseudoAPDUs(after: mark).filter({ $0.hasPrefix("FF0040") }).isEmpty,
                  ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let log = daemon.process.standardError
            #expect(log.contains(skipped) || !tag.pseudoAPDUs(after: mark).isEmpty, "the signal went to the reader or was skipped: \(log)")
            #expect(!log.contains(": error: ") && !log.contains("reader feedback off"), "no error, and the reader is not given up")

            let next = try await tapAndWatchTheReader(tag, watcher: watcher)
            #expect(next.command.hasPrefix(Self.accepted), "the next tap is shown again")
        }
    }
}
