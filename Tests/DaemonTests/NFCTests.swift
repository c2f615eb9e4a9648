import Foundation
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// Taps of the virtual NTAG 424 DNA through a real pcscd of the test process's own, to subscribers and the sandbox API.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct NFCTests {
    static let reader = "Virtual PCD 00 01"

    /// Presents the tag and returns the scan and verdict a subscriber received for it.
    func tap(_ tag: VirtualTag, watcher: LineClient) async throws -> VerifiedScan {
        try await tag.present()
        do {
            let result = try awaitVerdict(watcher)
            try await tag.remove()
            return result
        } catch {
            try? await tag.remove()
            throw error
        }
    }

    func awaitVerdict(_ watcher: LineClient) throws -> VerifiedScan {
        var seen: [JSON] = []
        guard let scan = try watcher.next(timeout: .seconds(20), seen: &seen, where: { $0["type"]?.string == "scan" }) else {
            throw HarnessError("no scan after a tap; saw \(seen.map { $0.encoded() })")
        }
        guard let verdict = try watcher.next(timeout: .seconds(20), seen: &seen, where: { $0["type"]?.string == "verdict" && $0["scan_id"] == scan["scan_id"] })
        else { throw HarnessError("no verdict after a tap; saw \(seen.map { $0.encoded() })") }
        return VerifiedScan(scan: scan, verdict: verdict)
    }

    func waitForReader(_ watcher: LineClient, hello: JSON) throws {
        let sources = hello["sources"]?.arrayValue ?? []
        if sources.contains(where: { $0["id"]?.string == "nfc:\(Self.reader)" && $0["state"]?.string == "ready" }) { return }
        let ready = try watcher.next(timeout: .seconds(20)) {
            $0["type"]?.string == "source" && $0["id"]?.string == "nfc:\(Self.reader)" && $0["state"]?.string == "ready"
        }
        guard ready != nil else { throw HarnessError("the virtual reader never became ready") }
    }

    /// A daemon on the virtual reader against a sandbox of its own, and a subscriber that has seen the reader ready.
    struct ReaderStation {
        let api: SandboxAPI
        let tag: VirtualTag
        let daemon: ScanDaemon
        let watcher: LineClient
    }

    /// Runs `body` on a fresh station whose tag plays `chip`; `prepare` sets the tag up before the daemon starts.
    func withReaderStation(chip: String, prepare: (VirtualTag) async throws -> Void = { _ in },
                           _ body: (ReaderStation) async throws -> Void) async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let tag = try VirtualTag.start(reader: 1, chip: chip)
        defer { tag.stop() }
        try await prepare(tag)
        let daemon = try ScanDaemon(api: api, nfc: Self.reader).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (watcher, hello) = try daemon.connect()
        try waitForReader(watcher, hello: hello)
        try await body(ReaderStation(api: api, tag: tag, daemon: daemon, watcher: watcher))
    }

    @Test func tapsReachSubscribersAndTheAPIOnceEach() async throws {
        try await withReaderStation(chip: "authentic") { station in
            let (api, tag, watcher) = (station.api, station.tag, station.watcher)

            let first = try await tap(tag, watcher: watcher)
            #expect(first.scan["source"]?.string == "nfc:\(Self.reader)")
            #expect(first.scan["medium"]?.string == "nfc")
            #expect(first.scan["code"]?.string == "chip")
            #expect(first.verdict["outcome"]?.string == "authentic")
            #expect(first.verdict["product_name"]?.string == "Chronograph 42")
            #expect(first.verdict["request_id"] == nil)

            try await tag.set(chip: "seal-opened")
            let opened = try await tap(tag, watcher: watcher)
            #expect(opened.verdict["seal"]?["status"]?.string == "opened")

            try await tag.set(chip: "never-registered")
            #expect(try await tap(tag, watcher: watcher).verdict["outcome"]?.string == "never_registered")

            let urls = try await api.requests().filter { $0.path == "/scans/verify" }.map { try JSON.parse($0.body)["url"]?.string }
            #expect(urls == [first.scan["raw"]?.string, opened.scan["raw"]?.string, urls.last ?? nil])
            #expect(Set(urls).count == 3, "each tap's URL reaches the API once")
        }
    }

    @Test func scansFlowAgainAfterPcscdRestartAndAnAPIOutage() async throws {
        try await withReaderStation(chip: "spare-a") { station in
            let (api, tag, watcher) = (station.api, station.tag, station.watcher)

            try await api.fault(path: "/scans/verify", status: 503)
            #expect(try await tap(tag, watcher: watcher).verdict["outcome"]?.string == "failure")
            try await api.reset()
            #expect(try await tap(tag, watcher: watcher).verdict["outcome"]?.string == "authentic", "the API is back: the next tap is answered")

            let station = SystemPCSCD.current()
            try await restartPcscd()
            #expect(SystemPCSCD.current() == station, "only the tests' own pcscd restarts; the machine's runs on")
            tag.stop()
            let again = try VirtualTag.start(reader: 1, chip: "spare-b")
            defer { again.stop() }
            let gone = try watcher.next(timeout: .seconds(30)) {
                $0["type"]?.string == "source" && ["removed", "error"].contains($0["state"]?.string ?? "")
            }
            #expect(gone != nil, "pcscd going away is reported")
            let back = try watcher.next(timeout: .seconds(30)) {
                $0["type"]?.string == "source" && $0["id"]?.string == "nfc:\(Self.reader)" && $0["state"]?.string == "ready"
            }
            #expect(back != nil, "the reader is picked up again without restarting the daemon")
            #expect(try await tap(again, watcher: watcher).verdict["outcome"]?.string == "authentic")
        }
    }

    /// As an operator would, but only the test process's own pcscd: stopped by its pid, then started again.
    func restartPcscd() async throws {
        let pcscd = try PrivatePCSCD.shared()
        try await pcscd.stop()
        try await pcscd.start()
    }
}
