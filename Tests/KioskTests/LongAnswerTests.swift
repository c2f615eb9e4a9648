import Foundation
import JSONCore
import KioskHarness
import StationClient
import StationWire
import Testing
import TestSupport

/// A product read never takes a verdict off the screen (issue 42): a history of 16,000 events (about 1 MB, under the
/// API's cap) made the daemon's answer one 1.44 MB line, which the bridge refused, dropping its link: the page went
/// from "Authentic" to "Station offline" on every tap of that product.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LongAnswerTests {
    @Test func aLongHistoryLeavesTheVerdictOnTheScreen() async throws {
        let rig = try StationRig(hold: 60)
        // About 1 MB, under the API client's 1 MiB body limit, as in the issue.
        let events = Array(repeating: #"{"kind":"authentication_scan","at":"2025-10-09T09:00:00Z"}"#, count: 16_000)
        try await rig.api.fault(path: "/history/", status: 200, body: #"{"events":["# + events.joined(separator: ",") + "]}",
                                contentType: "application/json")
        let page = try await rig.idlePage()
        try await page.evaluate("window.shownOutcomes = []; document.addEventListener('kiosk:shown', (e) => window.shownOutcomes.push(e.detail.outcome)); true")
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify(try mintChipURL("authentic", counter: 95), on: station, id: "long")
        let scanID = try #require(verdict["scan_id"]?.stringValue)
        let panel = try await page.waitForProductPanel(scanID: scanID)
        #expect(panel.history.count == 5, "\(panel)")
        let answer = try JSON.parse(try httpGet(port: rig.kiosk.port, path: "/passport?scan_id=\(scanID)").body)
        #expect(answer["history_truncated"] == .int(16_000 - 50), "\(answer["history_truncated"]?.encoded() ?? "none")")
        // Another verdict after it: the bridge still follows the daemon, and the screen was never "Station offline".
        let (_, next) = try await verify("https://sealtrust.io/p/SN-00043", on: station, id: "next")
        let screen = try await page.waitForSeq(try #require(next["seq"]?.integerValue))
        #expect(screen.outcome == "identified")
        let shown = try await page.evaluate("window.shownOutcomes").arrayValue?.compactMap(\.stringValue) ?? []
        #expect(!shown.contains("offline") && shown.last == "identified", "\(shown)")
    }
}
