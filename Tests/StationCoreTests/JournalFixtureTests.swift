import Foundation
import JSONCore
import ScanJournal
import StationCore
import Testing
import TestSupport
import VerdictSocket

/// A journal written by the daemon of main at 500eb9d (before the station core), from a real run: a source, seven
/// verifies (chips, a printed serial, a product reference, plain text with a tab, a link without proof, a replay).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct JournalFixtureTests {
    static let fixture = repositoryRoot().appendingPathComponent("Tests/StationCoreTests/Fixtures/journal-main-500eb9d").path

    func copyOfFixture() throws -> String {
        let copy = NSTemporaryDirectory() + "journal-fixture-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: copy)
        return copy
    }

    @Test func aJournalOfTheOldDaemonReplaysLineForLineAndReadsBackTheSame() throws {
        let copy = try copyOfFixture()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let journal = try Journal(path: copy)
        defer { journal.close() }
        #expect(journal.recoveryNote == nil)
        let written = try String(contentsOfFile: Self.fixture + "/00000000000000000001.jsonl", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let replayed = try journal.events(after: 0)
        #expect(replayed.map(\.line) == written)
        #expect(replayed.map(\.seq) == Array(1...15))
        #expect(replayed.map(\.type) == ["source"] + Array(repeating: ["scan", "verdict"], count: 7).flatMap { $0 })
        for line in written {
            #expect(try JSON.parse(line).encoded() == line, "today's writer writes the old daemon's lines byte for byte")
        }
    }

    @Test func theCoreGoesOnNumberingAfterTheOldDaemonsLastEvent() async throws {
        let copy = try copyOfFixture()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try await CoreRig.run(adjusting: { $0.journalPath = copy }) { rig, events in
            #expect(JSON.object(rig.core.helloFields())["last_seq"] == 15)
            rig.core.verify(raw: "plain text", requestID: nil, from: ClientID(rawValue: 1))
            let (scan, verdict) = try await events.scanAndVerdict()
            #expect(scan["seq"] == 16 && verdict["seq"] == 17)
            #expect(try rig.journal.events(after: 14).map(\.seq) == [15, 16, 17])
        }
    }
}
