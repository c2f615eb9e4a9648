import Foundation
import Glibc
import JSONCore
import Testing
import TestSupport

/// `--on-api-outage defer`, through the real sandbox: an API that cannot be reached (a stopped sandbox: connection
/// refused; DNS; TLS) turns a chip read into `deferred`, and its proof goes to the API once it is back (a sandbox
/// started again on the same port), oldest first, exactly once, with a late verdict naming the `deferred` one.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DeferralTests {
    static let deferring = ["--on-api-outage", "defer"]

    /// The verdicts `client` receives until `count` match `matching`, in order.
    func verdicts(_ client: LineClient, count: Int, timeout: Duration = .seconds(30),
                  matching: (JSON) -> Bool = { _ in true }) throws -> [JSON] {
        try client.collect(timeout: timeout) { seen in
            seen.filter { $0["type"]?.string == "verdict" && matching($0) }.count >= count
        }.filter { $0["type"]?.string == "verdict" && matching($0) }
    }

    func isLate(_ verdict: JSON) -> Bool { verdict["late"]?.bool == true }

    func deferredCount(_ client: LineClient) throws -> Int64? {
        try client.send(.object([("cmd", "status"), ("id", "s")]))
        return try client.next { $0["type"]?.string == "status" }?["deferred"]?["count"]?.integer
    }

    /// The proofs the sandbox received, by chip counter, in arrival order.
    func presented(_ api: SandboxAPI) async throws -> [String] {
        try await api.requests().filter { $0.path == "/scans/verify" }.map(\.body)
    }

    /// One chip tapped twice while the API is down: both `deferred` (the second without a call), both verified once
    /// it is back, in the order they were read: the sandbox's counters see the earlier tap first, so neither is a
    /// replay. Each late verdict names its `deferred` one, and `status` counts what waits.
    @Test func aChipTappedTwiceDuringAnOutageIsVerifiedInOrderWhenTheAPIComesBack() async throws {
        let first = try SandboxAPI.start()
        let port = first.port
        let daemon = try ScanDaemon(api: first, extra: Self.deferring).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        first.stop()
        let (client, _) = try daemon.connect()

        let earlier = try client.verify(try mintChipURL("spare-a", counter: 200), id: "earlier")
        let later = try client.verify(try mintChipURL("spare-a", counter: 201), id: "later")
        for verified in [earlier, later] {
            #expect(verified.verdict["outcome"]?.string == "deferred", "\(verified.verdict.encoded())")
            #expect(verified.verdict["message"]?.string == "Recorded; it will be checked as soon as the service is back.")
            #expect(verified.verdict["late"] == nil)
        }
        #expect(earlier.verdict["error"]?["cause"]?.string == "connect", "the refusal that deferred it is said")
        #expect(try deferredCount(client) == 2)
        let status = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "status"])
        #expect(status.output.contains("\ndeferred: 2 waiting for the API, the oldest "), "\(status)")
        // A script at the gate: a deferred chip is no authentic item (yet).
        let verify = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", try mintChipURL("spare-b", counter: 200)])
        #expect(verify.status == 1 && verify.output.contains("deferred"), "\(verify)")

        let back = try SandboxAPI.start(port: port)
        defer { back.stop() }
        let late = try verdicts(client, count: 2, matching: isLate)
        #expect(late.map { $0["scan_id"]?.string } == [earlier.scan["scan_id"]?.string, later.scan["scan_id"]?.string])
        #expect(late.map { $0["outcome"]?.string } == ["authentic", "authentic"], "\(late.map { $0.encoded() })")
        #expect(late.map { $0["deferred_seq"]?.integer } == [earlier.verdict["seq"]?.integer, later.verdict["seq"]?.integer])
        _ = try verdicts(client, count: 1, matching: isLate)
        let sent = try await presented(back)
        #expect(sent.count == 3, "each proof once")
        #expect(try deferredCount(client) == 0)
        let after = try client.verify(try mintChipURL("spare-a", counter: 202), id: "after").verdict
        #expect(after["outcome"]?.string == "authentic" && after["late"] == nil)
    }

    /// A request cut after it was written may have presented its proof: `failure`, never sent again, whatever
    /// `defer` says; and the daemon does not think the API away.
    @Test func aRequestCutAfterItWasWrittenIsAFailure() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/scans/verify", count: 1, closeConnection: true)
        let daemon = try ScanDaemon(api: api, extra: Self.deferring).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let cut = try client.verify(try mintChipURL("spare-a", counter: 300), id: "cut").verdict
        #expect(cut["outcome"]?.string == "failure" && cut["error"]?["cause"]?.string == "reset", "\(cut.encoded())")
        let next = try client.verify(try mintChipURL("spare-a", counter: 301), id: "next").verdict
        #expect(next["outcome"]?.string == "authentic")
        #expect(try await presented(api).count == 2, "the cut one was not sent again")
        #expect(try deferredCount(client) == 0)
    }

    /// A name that does not resolve sent nothing: deferred, with its cause.
    @Test func aDNSFailureIsDeferred() throws {
        let daemon = try ScanDaemon(api: nil, extra: Self.deferring + ["--api-base", "https://api.sealtrust.invalid"])
            .waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let verdict = try client.verify(try mintChipURL("spare-a", counter: 310), id: "dns").verdict
        #expect(verdict["outcome"]?.string == "deferred" && verdict["error"]?["cause"]?.string == "dns", "\(verdict.encoded())")
    }

    /// TLS that failed before the request went (a CA file that cannot be read) sent nothing: deferred; the reload that
    /// mends the CA brings the API back, and the proof goes then.
    @Test func aTLSFailureIsDeferredAndVerifiedOnceTheCAIsMended() async throws {
        let certificates = try ScratchDirectory("sealtrust-defer-certs")
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let tlsEnd = try NetLabPart.start(["tls", "--certs", certificates.path, "--kind", "good", "--upstream", "127.0.0.1:\(api.port)"])
        defer { tlsEnd.stop() }
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bundle = directory + "/ca.pem"
        #expect(mkfifo(bundle, 0o600) == 0)
        let daemon = try ScanDaemon(api: nil, extra: Self.deferring + ["--api-base", "https://localhost:\(tlsEnd.port)", "--api-ca", bundle])
            .waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let deferred = try client.verify(try mintChipURL("spare-a", counter: 320), id: "tls").verdict
        #expect(deferred["outcome"]?.string == "deferred" && deferred["error"]?["cause"]?.string == "tls", "\(deferred.encoded())")
        #expect(try await api.requests().isEmpty)

        try FileManager.default.removeItem(atPath: bundle)
        try FileManager.default.copyItem(atPath: certificates.path + "/ca.pem", toPath: bundle)
        daemon.process.signal(SIGHUP)
        let late = try verdicts(client, count: 1, matching: isLate)
        #expect(late.first?["outcome"]?.string == "authentic" && late.first?["deferred_seq"] == deferred["seq"], "\(late.map { $0.encoded() })")
    }

    /// Stopped and started again while the API is away: what was deferred is still deferred, and is verified once the
    /// API is back.
    @Test func aRestartDuringTheOutageKeepsWhatIsDeferred() async throws {
        let first = try SandboxAPI.start()
        let port = first.port
        first.stop()
        let daemon = try ScanDaemon(api: first, extra: Self.deferring).waitUntilListening()
        let (client, _) = try daemon.connect()
        let kept = try client.verify(try mintChipURL("spare-a", counter: 400), id: "kept")
        #expect(kept.verdict["outcome"]?.string == "deferred")
        #expect(daemon.terminate() == 0)

        let restarted = try ScanDaemon(api: first, extra: Self.deferring, directory: daemon.directory).waitUntilListening()
        defer { _ = restarted.terminate(); restarted.removeDirectory() }
        let (watcher, _) = try restarted.connect()
        #expect(try deferredCount(watcher) == 1)
        let back = try SandboxAPI.start(port: port)
        defer { back.stop() }
        let late = try verdicts(watcher, count: 1, matching: isLate)
        #expect(late.first?["scan_id"] == kept.scan["scan_id"] && late.first?["deferred_seq"] == kept.verdict["seq"])
        #expect(late.first?["outcome"]?.string == "authentic", "\(late.map { $0.encoded() })")
        #expect(try await presented(back).count == 1)
    }

    /// Older than `--defer-max-age` (here 3.6 s) while the API is still away: a late `failure` that says why; the
    /// proof never goes.
    @Test func aDeferredScanOlderThanTheMaximumAgeEndsAsAFailure() async throws {
        let first = try SandboxAPI.start()
        let port = first.port
        first.stop()
        let daemon = try ScanDaemon(api: first, extra: Self.deferring + ["--defer-max-age", "0.001"]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let deferred = try client.verify(try mintChipURL("spare-a", counter: 500), id: "old").verdict
        #expect(deferred["outcome"]?.string == "deferred")
        let late = try verdicts(client, count: 1, matching: isLate)
        #expect(late.first?["outcome"]?.string == "failure" && late.first?["deferred_seq"] == deferred["seq"])
        #expect(late.first?["error"]?["detail"]?.string?.contains("defer-max-age") == true, "\(late.map { $0.encoded() })")
        #expect(try deferredCount(client) == 0)

        let back = try SandboxAPI.start(port: port)
        defer { back.stop() }
        let fresh = try client.verify(try mintChipURL("spare-a", counter: 501), id: "fresh").verdict
        #expect(fresh["outcome"]?.string == "authentic")
        #expect(try await presented(back).count == 1, "only the fresh proof went")
    }

    /// A deferred verdict whose scan's line is gone from the journal (the retention floor keeps it; a journal copied
    /// in part, say) cannot be verified: at start it ends as a late `failure` that says so, never silently.
    @Test func aDeferredScanWhoseLineIsGoneEndsAsAFailureAtStart() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/journal", withIntermediateDirectories: true)
        let at = ISO8601DateFormatter().string(from: Date())
        let line = #"{"type":"verdict","seq":1,"at":"\#(at)","scan_id":"gone-1","source":"manual","medium":"manual","outcome":"deferred","message":"Recorded.","latency_ms":3}"#
        try (line + "\n").write(toFile: directory + "/journal/00000000000000000001.jsonl", atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: api, extra: Self.deferring, directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        try client.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        let late = try #require(try verdicts(client, count: 1, matching: isLate).first)
        #expect(late["scan_id"]?.string == "gone-1" && late["outcome"]?.string == "failure" && late["deferred_seq"]?.integer == 1)
        #expect(late["error"]?["detail"]?.string?.contains("no longer in the journal") == true, "\(late.encoded())")
        #expect(try await presented(api).isEmpty)
    }

    /// A tap while a deferred proof is out waits its turn: no verdict until the deferred one has its late verdict,
    /// then an ordinary one.
    @Test func aNewTapDuringTheDrainWaitsItsTurn() async throws {
        let first = try SandboxAPI.start()
        let port = first.port
        first.stop()
        let daemon = try ScanDaemon(api: first, extra: Self.deferring).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let deferred = try client.verify(try mintChipURL("spare-a", counter: 600), id: "deferred")
        let back = try SandboxAPI.start(port: port, faults: [#"{"path":"/scans/verify","hold":true,"count":1}"#])
        defer { back.stop() }
        while try await presented(back).isEmpty { try await Task.sleep(for: .milliseconds(20)) }

        try client.send(.object([("cmd", "verify"), ("raw", .string(try mintChipURL("spare-a", counter: 601))), ("id", "new")]))
        let scan = try #require(try client.next { $0["type"]?.string == "scan" && $0["request_id"]?.string == "new" })
        try await back.release()
        let both = try verdicts(client, count: 2)
        #expect(both.map { $0["scan_id"]?.string } == [deferred.scan["scan_id"]?.string, scan["scan_id"]?.string],
                "the deferred proof's late verdict first")
        #expect(both.map { $0["outcome"]?.string } == ["authentic", "authentic"], "\(both.map { $0.encoded() })")
        #expect(both.map { isLate($0) } == [true, false])
        #expect(try await presented(back).count == 2)
    }

    /// kill -9 while a deferred proof is out (held in the sandbox): at the restart, that scan ends as a late
    /// `failure` (its proof may have been read), the other deferred one is verified, and nothing goes twice.
    @Test func aKillDuringTheDrainSendsNothingTwiceAndLeavesNothingWithoutAVerdict() async throws {
        let first = try SandboxAPI.start()
        let port = first.port
        first.stop()
        let daemon = try ScanDaemon(api: first, extra: Self.deferring).waitUntilListening()
        let (client, _) = try daemon.connect()
        let held = try client.verify(try mintChipURL("spare-a", counter: 700), id: "held")
        let other = try client.verify(try mintChipURL("spare-b", counter: 700), id: "other")
        #expect([held, other].allSatisfy { $0.verdict["outcome"]?.string == "deferred" })

        let back = try SandboxAPI.start(port: port, faults: [#"{"path":"/scans/verify","hold":true,"count":1}"#])
        defer { back.stop() }
        while try await presented(back).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        daemon.kill()
        try await back.release()

        let restarted = try ScanDaemon(api: back, extra: Self.deferring, directory: daemon.directory).waitUntilListening()
        defer { _ = restarted.terminate(); restarted.removeDirectory() }
        let (watcher, _) = try restarted.connect()
        try watcher.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        // Live events and the replay's may both bring the late verdict journaled at the start: by scan, once each.
        let wanted = Set([held.scan["scan_id"]?.string, other.scan["scan_id"]?.string])
        let late = try watcher.collect(timeout: .seconds(30)) { seen in
            Set(seen.filter { $0["type"]?.string == "verdict" && isLate($0) }.map { $0["scan_id"]?.string }) == wanted
        }.filter { $0["type"]?.string == "verdict" && isLate($0) }
        let byScan = Dictionary(late.map { ($0["scan_id"]?.string ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let ended = try #require(byScan[held.scan["scan_id"]?.string ?? ""])
        #expect(ended["outcome"]?.string == "failure" && ended["deferred_seq"] == held.verdict["seq"], "\(ended.encoded())")
        #expect(ended["error"]?["detail"]?.string?.contains("not sent again") == true)
        let verified = try #require(byScan[other.scan["scan_id"]?.string ?? ""], "\(late.map { $0.encoded() }) \(restarted.process.standardError)")
        #expect(verified["outcome"]?.string == "authentic" && verified["deferred_seq"] == other.verdict["seq"], "\(verified.encoded())")
        let sent = try await presented(back)
        #expect(sent.count == 2, "the held proof once, the other once: \(sent)")
        #expect(Set(sent).count == sent.count, "no proof twice")
        #expect(try deferredCount(watcher) == 0)
    }
}
