import Foundation
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// kill -9 in the middle of a burst: what any client received is in the journal, in order, once.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct CrashTests {
    @Test func everyEventAClientReceivedSurvivesKillNine() async throws {
        let api = try SandboxAPI.start(window: 1)
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        let (watcher, _) = try daemon.connect()
        let (sender, _) = try daemon.connect()
        try sender.send(.object([("cmd", "watch"), ("events", []), ("id", "quiet")]))
        _ = try sender.readJSON()

        for index in 0..<40 {
            let raw = index.isMultiple(of: 2) ? try mintChipURL("spare-a", counter: 100 + index) : "burst \(index)"
            try sender.send(.object([("cmd", "verify"), ("raw", .string(raw)), ("id", .int(Int64(index)))]))
        }
        var received: [String] = []
        while received.count < 30, let line = try watcher.readLine(timeout: .seconds(20)) { received.append(line) }
        daemon.kill()
        while let line = try? watcher.readLine(timeout: .seconds(2)) { received.append(line) }
        #expect(received.count >= 30)

        let restarted = try ScanDaemon(api: api, directory: daemon.directory).waitUntilListening()
        defer { _ = restarted.terminate(); restarted.removeDirectory() }
        let (replayer, hello) = try restarted.connect()
        let lastSeq = try #require(hello["last_seq"]?.integer)
        try replayer.send("{\"cmd\":\"replay\",\"since\":0,\"id\":\"r\"}")
        var replayed: [JSON] = []
        while replayed.last?["seq"]?.integer ?? 0 < lastSeq, let message = try replayer.readJSON(timeout: .seconds(10)) {
            if message["seq"] != nil { replayed.append(message) }
        }
        let seqs = replayed.compactMap { $0["seq"]?.integer }
        #expect(seqs == Array(1...lastSeq), "replay from 0 is every seq once, in order")
        let replayedLines = Set(replayed.map { $0.encoded() })
        for line in received {
            let event = try JSON.parse(line)
            #expect(replayedLines.contains(event.encoded()), "received before the crash but not replayed: \(line)")
        }
        let after = try replayer.verify("after the crash", id: "a").scan
        #expect(after["seq"]?.integer ?? 0 > lastSeq, "seq keeps growing across the restart")
    }
}
