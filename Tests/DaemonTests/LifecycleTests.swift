import Foundation
import Glibc
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// Concurrency of scans, stopping with a verification in flight, reloading on SIGHUP, journald's prefixes.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct LifecycleTests {
    @Test func aSlowAnswerDoesNotHoldUpTheNextScan() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        try await api.fault(path: "/scans/verify", delay: 3, count: 1)
        try client.send(.object([("cmd", "verify"), ("raw", .string(try mintChipURL("spare-a", counter: 20))), ("id", "slow")]))
        try client.send(.object([("cmd", "verify"), ("raw", "https://sealtrust.io/p/SN-00042"), ("id", "quick")]))
        var seen: [JSON] = []
        let first = try client.next(timeout: .seconds(10), seen: &seen) { $0["type"]?.string == "verdict" }
        #expect(first?["request_id"]?.string == "quick", "the printed code's verdict comes while the chip's call waits")
        let second = try client.next(timeout: .seconds(10), seen: &seen) { $0["type"]?.string == "verdict" }
        #expect(second?["request_id"]?.string == "slow")
        #expect(second?["outcome"]?.string == "authentic")
    }

    @Test func sigtermLetsTheVerificationInFlightFinish() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api)
        defer { daemon.removeDirectory() }
        try daemon.waitUntilListening()
        let (client, _) = try daemon.connect()
        try await api.fault(path: "/scans/verify", delay: 1.5, count: 1)
        try client.send(.object([("cmd", "verify"), ("raw", .string(try mintChipURL("spare-a", counter: 30))), ("id", "inflight")]))
        #expect(try client.next(timeout: .seconds(5)) { $0["type"]?.string == "scan" } != nil)
        daemon.process.signal(SIGTERM)
        let verdict = try client.next(timeout: .seconds(10)) { $0["type"]?.string == "verdict" }
        #expect(verdict?["outcome"]?.string == "authentic", "the answer in flight still reaches the client")
        #expect(daemon.process.waitForExit(timeout: .seconds(15)) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))

        let journal = try Journal(path: daemon.journalPath)
        defer { journal.close() }
        let types = try journal.events(after: 0).map(\.type)
        #expect(types.suffix(2) == ["scan", "verdict"], "both are in the journal after the stop")
    }

    @Test func sighupReloadsLanguageAndNamesWhatNeedsARestart() throws {
        let directory = try makeScratchDirectory()
        let config = directory + "/scand.conf"
        try "lang = en\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: nil, extra: ["--config", config], directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        #expect(try client.verify("plain text", id: "en").verdict["message"]?.string == "This code is not a SealTrust code.")

        try "lang = fr\nmax-clients = 9\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
        try daemon.waitForLog("configuration reloaded")
        #expect(try client.verify("plain text", id: "fr").verdict["message"]?.string == "Ce code n'est pas un code SealTrust.")
        #expect(daemon.process.standardError.contains("a restart is needed to apply: max-clients"))

        try "lang = klingon\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
        try daemon.waitForLog("configuration not reloaded")
        #expect(daemon.process.standardError.contains("\(config):1: bad value 'klingon' for 'lang'"))
        #expect(try client.verify("plain text", id: "kept").verdict["message"]?.string == "Ce code n'est pas un code SealTrust.",
                "a bad configuration on reload keeps the running one")
    }

    @Test func underJournaldEachLineCarriesItsPriority() throws {
        let daemon = try ScanDaemon(api: nil, environment: ["JOURNAL_STREAM": "8:12345"]).waitUntilListening()
        defer { daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        _ = try client.verify("plain text", id: "j")
        #expect(daemon.terminate() == 0)
        let lines = daemon.process.standardError.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<5>") || $0.hasPrefix("<6>") || $0.hasPrefix("<7>") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<5>listening on") })
        #expect(lines.contains { $0.hasPrefix("<6>verdict ") })
    }

    @Test func theTokenComesFromSystemdCredentialsWhenNoFileIsNamed() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let credentials = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        try "tok-authority".write(toFile: credentials + "/sealtrust-token", atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: api, extra: ["--tier", "authority"], environment: ["CREDENTIALS_DIRECTORY": credentials])
            .waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let verdict = try client.verify("https://sealtrust.io/p/SN-00042", id: "a").verdict
        #expect(verdict["access_tier"]?.string == "authority")
        #expect(try await api.requests().first?.headers["authorization"] == "Bearer tok-authority")
    }
}
