import Foundation
import ScanJournal
import TestSupport
import Testing

/// What FoundationNetworking did to the daemon (a crash on an answer cut in its headers), and what an operator
/// now reads instead of `{"kind":"transport"}`: the cause and the detail, in the verdict and the log.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct NetworkFailureTests {
    @Test func answerCutInItsHeadersIsAFailureWithItsCauseAndTheDaemonLives() throws {
        let record = try makeScratchDirectory() + "/record"
        let server = try NetLabPart.start(["misbehave", "--mode", "cut-in-headers", "--record", record])
        defer { server.stop() }
        let daemon = try ScanDaemon(api: nil, extra: ["--api-base", "http://127.0.0.1:\(server.port)"]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let chipURL = "https://sealtrust.io/c?picc_data=ef963ff7828658a599f3041510671e88&cmac=94eed9ee65337086"

        let verdict = try client.verify(chipURL, id: "cut").verdict
        #expect(verdict["outcome"]?.string == "failure")
        #expect(verdict["error"]?["kind"]?.string == "transport")
        #expect(verdict["error"]?["cause"]?.string == "reset")
        #expect(verdict["error"]?["detail"]?.string == "the API closed the connection before its answer's headers were complete")

        let again = try client.verify(chipURL, id: "again").verdict
        #expect(again["outcome"]?.string == "failure", "the daemon still answers")
        let requests = (try? String(contentsOfFile: record, encoding: .utf8))?.split(separator: "\n").filter { $0.hasPrefix("REQUEST") }
        #expect(requests?.count == 2, "one request a verify")
        #expect(daemon.process.standardError.contains("warning: verdict"))
        #expect(daemon.process.standardError.contains("[transport reset: the API closed the connection before its answer's headers were complete]"))
    }
}
