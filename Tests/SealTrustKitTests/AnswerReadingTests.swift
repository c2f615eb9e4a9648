import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Reading the answer: chunks, bounds, and the three defects FoundationNetworking had", .timeLimit(.minutes(1)))
struct AnswerReadingTests {
    private func verify(mode: String, timeout: TimeInterval = 5) async throws -> (ScanOutcome, Duration, [String]) {
        var finding: (ScanOutcome, Duration, [String])?
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", mode, "--record", record.path])
            defer { server.stop() }
            let client = networkClient(port: server.port, timeout: timeout)
            let started = ContinuousClock.now
            let result = await outcome(client, url: sampleChipURL)
            finding = (result, ContinuousClock.now - started, recordedLines(record).filter { $0.hasPrefix("REQUEST") })
        }
        return try #require(finding)
    }

    @Test func chunkedAnswerIsReadWhole() async throws {
        let (result, _, requests) = try await verify(mode: "chunked")
        #expect(result.verdict == .authentic && result.verification?.productName == "Chronograph 42")
        #expect(requests.count == 1)
    }

    @Test func answerOverAMebibyteIsADecodingFailure() async throws {
        let (result, _, _) = try await verify(mode: "over-a-mebibyte")
        #expect(result.verdict == .failure && result.error?.kind == "decoding")
        #expect(result.error?.detailText == "the answer's body is over 1 MiB; not read further")
    }

    @Test func answerCutInItsHeadersIsAFailure() async throws {
        let (result, _, requests) = try await verify(mode: "cut-in-headers")
        #expect(result.verdict == .failure && result.error?.cause == .reset)
        #expect(result.error?.detailText == "the API closed the connection before its answer's headers were complete")
        #expect(requests.count == 1)
    }

    @Test func basicChallengeIsAFailureInTime() async throws {
        let (result, elapsed, requests) = try await verify(mode: "basic-challenge", timeout: 2)
        #expect(result.verdict == .failure && result.error?.httpStatus == 401)
        #expect(elapsed < .seconds(1))
        #expect(requests.count == 1)
    }

    /// FoundationNetworking hung every later call once 16 challenges had hung: each of 17 in a row ends, in time.
    @Test func seventeenBasicChallengesInARowEachEndInTime() async throws {
        try await withScratchFolder { folder in
            let record = folder.appendingPathComponent("record")
            let server = try await startNetLab(["misbehave", "--mode", "basic-challenge", "--record", record.path])
            defer { server.stop() }
            // A hang would end at the timeout as a timeout, never as the 401: the bound leaves room for a loaded machine.
            let client = networkClient(port: server.port, timeout: 5)
            for attempt in 1...17 {
                let started = ContinuousClock.now
                let result = await outcome(client, url: sampleChipURL)
                #expect(result.verdict == .failure && result.error?.httpStatus == 401, "call \(attempt): \(String(describing: result.error))")
                #expect(ContinuousClock.now - started < .seconds(4), "call \(attempt) ended in time")
            }
            #expect(recordedLines(record).filter { $0.hasPrefix("REQUEST") }.count == 17)
        }
    }

    @Test func fourGigabyteBodyIsCutAtOneMebibyteWithFlatMemory() async throws {
        let before = residentBytes()
        let (result, elapsed, _) = try await verify(mode: "huge-body")
        #expect(result.error?.kind == "decoding" && result.error?.detailText?.contains("over 1 MiB") == true)
        #expect(elapsed < .seconds(2))
        #expect(residentBytes() - before < 16 << 20, "grew \((residentBytes() - before) >> 20) MiB")
    }

    @Test func bodyAtOneByteASecondEndsAtTheTimeout() async throws {
        let (result, elapsed, _) = try await verify(mode: "trickle", timeout: 2)
        #expect(result.verdict == .failure && result.error?.cause == .timeout)
        #expect(result.error?.detailText == "the API's answer did not end within 2 s")
        #expect(elapsed >= .milliseconds(1900) && elapsed < .seconds(3))
    }
}
