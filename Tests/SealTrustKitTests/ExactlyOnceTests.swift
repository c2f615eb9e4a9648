import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Exactly once: a verify is written once, whatever the server or the connection does", .timeLimit(.minutes(1)))
struct ExactlyOnceTests {
    static let closingPoints = [
        "close-before-reading", "close-after-request-line", "close-after-headers", "close-after-part-of-body",
        "close-after-request", "close-after-part-of-answer",
    ]

    @Test(arguments: closingPoints, [false, true])
    func serverClosingAtAnyPointSeesOneRequestAndTheVerdictIsAFailure(mode: String, overTLS: Bool) async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let certificates = folder.appendingPathComponent("certs")
            let server = try await startNetLab(["misbehave", "--mode", mode, "--record", record.path]
                + (overTLS ? ["--tls", certificates.path] : []))
            defer { server.stop() }
            let client = networkClient(scheme: overTLS ? "https" : "http", host: overTLS ? "localhost" : "127.0.0.1",
                                       port: server.port, caFile: overTLS ? certificates.appendingPathComponent("ca.pem") : nil)
            let started = ContinuousClock.now
            let result = await outcome(client, url: sampleChipURL)
            #expect(result.verdict == .failure)
            #expect(result.error?.kind == "transport" && result.error?.cause == .reset, "\(String(describing: result.error))")
            #expect(ContinuousClock.now - started < .seconds(3), "a failure, not a wait for the timeout")
            #expect(recordedLines(record).filter { $0.hasPrefix("REQUEST") }.count == 1, "\(recordedLines(record))")
        }
    }

    @Test func readyConnectionClosedByTheServerIsReplacedBeforeAnythingIsSent() async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", "close-idle", "--record", record.path])
            defer { server.stop() }
            let client = networkClient(port: server.port)
            try await waitForRecord(record) { $0 == "CLOSED-IDLE" }
            let result = await outcome(client, url: sampleChipURL)
            #expect(result.verdict == .authentic, "\(String(describing: result.error))")
            #expect(recordedLines(record).filter { $0.hasPrefix("REQUEST") } == ["REQUEST POST /scans/verify HTTP/1.1"])
        }
    }

    @Test func readyConnectionIsRenewedBeforeItIdlesPastTheKeepAlive() async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", "answer", "--record", record.path])
            defer { server.stop() }
            let client = networkClient(port: server.port, keepAlive: 0.5)
            try await waitForRecord(record) { _ in recordedLines(record).filter { $0 == "ACCEPTED" }.count >= 3 }
            let result = await outcome(client, url: sampleChipURL)
            #expect(result.verdict == .authentic, "\(String(describing: result.error))")
            #expect(recordedLines(record).filter { $0.hasPrefix("REQUEST") }.count == 1)
        }
    }

    @Test func verifyAfterAnotherTakesAConnectionNothingWasEverSentOn() async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", "answer", "--record", record.path])
            defer { server.stop() }
            let client = networkClient(port: server.port)
            for _ in 0..<3 {
                #expect(await outcome(client, url: sampleChipURL).verdict == .authentic)
            }
            // Each verify on a connection of its own: the kept-alive ones serve reads only.
            #expect(recordedLines(record).filter { $0.hasPrefix("REQUEST") }.count == 3)
            #expect(recordedLines(record).filter { $0 == "ACCEPTED" }.count >= 3)
        }
    }

    /// A warehouse's lanes tap at once: each verify goes out on a connection opened before it, and neither waits for a
    /// handshake (TCP, then TLS against the real API) on its path while the other's call is out.
    @Test func twoVerifiesAtOnceEachFindAConnectionReady() async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", "slow", "--record", record.path])
            defer { server.stop() }
            let client = networkClient(port: server.port, readyConnections: 2)
            try await waitForRecord(record) { _ in recordedLines(record).filter { $0 == "ACCEPTED" }.count >= 2 }
            async let first = outcome(client, url: sampleChipURL)
            async let second = outcome(client, url: sampleChipURL)
            #expect(await first.verdict == .authentic)
            #expect(await second.verdict == .authentic)
            let lines = recordedLines(record)
            let requests = lines.indices.filter { lines[$0].hasPrefix("REQUEST") }
            try #require(requests.count == 2, "\(lines)")
            #expect(!lines[requests[0]..<requests[1]].contains("ACCEPTED"),
                    "no connection was opened while the two verifies were on their way: \(lines)")
        }
    }
}
