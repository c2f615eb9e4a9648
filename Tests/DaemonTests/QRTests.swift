import Foundation
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// Printed codes from a YUV4MPEG2 stream, through libzbar, to verdicts.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct QRTests {
    func writeStream(_ payloads: [String], to path: String) throws {
        try runTool("/usr/bin/python3", [repositoryRoot().appendingPathComponent("demo/qr-stream.py").path, path] + payloads)
    }

    @Test func aStreamsCodesGetTheirVerdictsAndItsEndIsReported() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        let stream = directory + "/codes.y4m"
        let daemon = try ScanDaemon(api: api, camera: "y4m:\(stream)", directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (watcher, hello) = try daemon.connect()
        let sources = hello["sources"]?.arrayValue ?? []
        var absent = sources.contains { $0["id"]?.string == "y4m:\(stream)" && $0["state"]?.string == "absent" }
        if !absent {
            absent = try watcher.next(timeout: .seconds(10)) { $0["type"]?.string == "source" && $0["state"]?.string == "absent" } != nil
        }
        #expect(absent, "a y4m path that does not exist yet is absent")

        try writeStream(["https://sealtrust.io/p/SN-00042", "https://id.gs1.org/01/09506000134352"], to: directory + "/partial")
        try FileManager.default.moveItem(atPath: directory + "/partial", toPath: stream)

        let isVerdict = { (message: JSON) in message["type"]?.string == "verdict" }
        let isEnd = { (message: JSON) in message["type"]?.string == "source" && message["state"]?.string == "removed" }
        // The end of the stream may be reported before, between or after the two verdicts.
        let seen = try watcher.collect(timeout: .seconds(30)) { $0.filter(isVerdict).count == 2 && $0.contains(where: isEnd) }
        let verdicts = seen.filter(isVerdict)
        #expect(verdicts.count == 2, "both codes get a verdict: \(seen.map { $0.encoded() })")
        let scans = seen.filter { $0["type"]?.string == "scan" }
        #expect(scans.map { $0["raw"]?.string } == ["https://sealtrust.io/p/SN-00042", "https://id.gs1.org/01/09506000134352"])
        #expect(scans.allSatisfy { $0["medium"]?.string == "qr" && $0["source"]?.string == "y4m:\(stream)" })
        // Scans are concurrent: the foreign code, which makes no call, may well have its verdict first.
        let verdictsInScanOrder = scans.map { scan in verdicts.first { $0["scan_id"]?.string == scan["scan_id"]?.string } }
        #expect(verdictsInScanOrder.map { $0?["outcome"]?.string } == ["identified", "not_sealtrust"])
        #expect(verdictsInScanOrder.first??["product_name"]?.string == "Chronograph 42")
        #expect(seen.first(where: isEnd)?["id"]?.string == "y4m:\(stream)", "the end of the stream is reported")
        #expect(try await api.requests().filter { $0.path.hasPrefix("/passport/") }.count == 1, "the foreign code made no call")
    }

    /// `--camera /dev/null`: it exists, so it is no camera yet to come; it is an error with its reason, and libv4l2's
    /// own complaints never reach the log. That it is said once across the source's retries is CameraPathTests',
    /// with a retry interval of a millisecond.
    @Test func aPathThatIsNoCaptureDeviceIsAnErrorWithItsReason() throws {
        let daemon = try ScanDaemon(api: nil, camera: "/dev/null").waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        try client.send(.object([("cmd", "replay"), ("since", 0), ("id", "r")]))
        let source = try #require(try client.next { $0["type"]?.string == "source" && $0["id"]?.string == "camera:/dev/null" })
        #expect(source["state"]?.string == "error", "\(source.encoded())")
        #expect(source["detail"]?.string == "not a V4L2 device", "\(source.encoded())")
        #expect(!daemon.process.standardError.contains("libv4l2"), "\(daemon.process.standardError)")
        #expect(!daemon.process.standardError.contains("no such file"), "\(daemon.process.standardError)")
    }
}
