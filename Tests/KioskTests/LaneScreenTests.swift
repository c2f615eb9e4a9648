import Foundation
import KioskHarness
import JSONCore
import StationClient
import StationWire
import Testing
import TestSupport

/// One kiosk bridge for a dock of two lanes (issue 44): the page at `/?lane=NAME`, or any page of a bridge started
/// with `--lane NAME`, shows that lane's verdicts and nothing of the other's. Lane dock1 is the station's manual
/// scans (a client's `verify`), lane dock2 its Y4M cameras.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct LaneScreenTests {
    /// Records every journaled event the page received (its `data-received`), in order.
    static let recorder = """
        (() => {
          const v = document.getElementById('verdict');
          window.laneSeen = [];
          new MutationObserver(() => window.laneSeen.push(v.dataset.received))
            .observe(v, { attributes: true, attributeFilter: ['data-received'] });
          return true;
        })()
        """

    static func seen(on page: BrowserPage) async throws -> Set<Int64> {
        Set(try await page.evaluate("window.laneSeen").arrayValue?.compactMap { $0.stringValue.flatMap { Int64($0) } } ?? [])
    }

    static func writeStream(_ payload: String, to path: String) throws {
        try runTool("/usr/bin/python3", [repositoryRoot().appendingPathComponent("demo/qr-stream.py").path, path + ".partial", payload])
        try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
    }

    /// The scan and verdict seqs of the next code a camera of lane dock2 reads.
    static func dock2Code(_ payload: String, to path: String, on station: StationConnection) async throws -> (scan: Int64, verdict: Int64) {
        try writeStream(payload, to: path)
        var scan: JSON?
        while let message = await station.next() {
            if message.type == .event(.scan), message.json["raw"]?.stringValue == payload {
                #expect(message.json["lane"] == "dock2")
                scan = message.json
            } else if let found = scan, message.type == .event(.verdict), message.json["scan_id"] == found["scan_id"] {
                #expect(message.json["lane"] == "dock2")
                return (found["seq"]?.integerValue ?? 0, message.json["seq"]?.integerValue ?? 0)
            }
        }
        throw BrowserError("no verdict for \(payload)")
    }

    static func seqs(_ pair: (scan: JSON, verdict: JSON)) -> [Int64] {
        [pair.scan["seq"]?.integerValue ?? 0, pair.verdict["seq"]?.integerValue ?? 0]
    }

    @Test func eachLanesPageShowsOnlyItsLane() async throws {
        let streams = try makeScratchDirectory("lane-streams")
        defer { try? FileManager.default.removeItem(atPath: streams) }
        let cameras = ["a", "b", "c"].map { "\(streams)/dock2\($0).y4m" }
        let rig = try StationRig(hold: 120, daemonArguments: cameras.flatMap { ["--camera", "y4m:\($0)"] } + [
            "--lane", "dock1=manual", "--lane", "dock2=" + cameras.map { "y4m:\($0)" }.joined(separator: ","),
        ])
        let browser = try Chromium()
        let whole = try await browser.open(rig.pageURL)
        let dock1 = try await browser.open(rig.kiosk.base + "/?lane=dock1")
        let dock2 = try await browser.open(rig.kiosk.base + "/?lane=dock2")
        for page in [whole, dock1, dock2] {
            _ = try await page.waitForOutcome("idle")
            _ = try await page.evaluate(Self.recorder)
        }
        let station = try await rig.connect()
        defer { station.close() }

        let first = try await verify("https://id.gs1.org/01/09506000134352", on: station, id: "dock1-1")
        #expect(first.verdict["lane"] == "dock1")
        let firstSeqs = Self.seqs(first)
        let firstShown = try await dock1.waitForSeq(firstSeqs[1])
        #expect(firstShown.outcome == "not_sealtrust")
        _ = try await whole.waitForSeq(firstSeqs[1])

        let second = try await Self.dock2Code("carton 2-1", to: cameras[0], on: station)
        let secondShown = try await dock2.waitForSeq(second.verdict)
        #expect(secondShown.outcome == "not_sealtrust")
        _ = try await whole.waitForSeq(second.verdict)

        // One more of each lane: each page has then been sent everything journaled before, in seq order.
        let third = Self.seqs(try await verify("plain text", on: station, id: "dock1-2"))
        _ = try await dock1.waitForSeq(third[1])
        let fourth = try await Self.dock2Code("carton 2-2", to: cameras[1], on: station)
        _ = try await dock2.waitForSeq(fourth.verdict)

        let dock1Seqs = Set(firstSeqs + third)
        let dock2Seqs: Set<Int64> = [second.scan, second.verdict, fourth.scan, fourth.verdict]
        let seenByDock1 = try await Self.seen(on: dock1)
        let seenByDock2 = try await Self.seen(on: dock2)
        #expect(seenByDock1.isDisjoint(with: dock2Seqs) && seenByDock1.isSuperset(of: dock1Seqs), "dock1's page saw \(seenByDock1.sorted())")
        #expect(seenByDock2.isDisjoint(with: dock1Seqs) && seenByDock2.isSuperset(of: dock2Seqs), "dock2's page saw \(seenByDock2.sorted())")
        let seenByWhole = try await Self.seen(on: whole)
        #expect(seenByWhole.isSuperset(of: dock1Seqs.union(dock2Seqs)), "the page without a lane shows the station: \(seenByWhole.sorted())")
        let dock1Screen = try await dock1.screen()
        let dock2Screen = try await dock2.screen()
        #expect(dock1Screen.seq == String(third[1]) && dock2Screen.seq == String(fourth.verdict))

        // A lane's page opened now shows what its lane's screen shows, not the station's newest verdict.
        let later = try await browser.open(rig.kiosk.base + "/?lane=dock1")
        let opened = try await later.waitFor("v.dataset.seq !== undefined && v.dataset.seq !== ''")
        #expect(opened.seq == String(third[1]), "\(opened)")

        // A lane the station does not have: a mistyped address is told so, not left on an idle screen for ever.
        let unknown = try HTTPProbe(port: rig.kiosk.port)
        #expect(unknown.get("/?lane=dock9") && unknown.readHead()?.status == 404)

        // A bridge started with --lane: its page shows that lane alone, and refuses another lane's page.
        try rig.restartKiosk(arguments: ["--lane", "dock2"])
        let probe = try HTTPProbe(port: rig.kiosk.port)
        #expect(probe.get("/?lane=dock1") && probe.readHead()?.status == 404)
        let badName = try HTTPProbe(port: rig.kiosk.port)
        #expect(badName.get("/events?lane=dock%0A1") && badName.readHead()?.status == 400)
        let only = try await browser.open(rig.pageURL)
        _ = try await only.waitFor("v.dataset.outcome !== undefined")
        _ = try await only.evaluate(Self.recorder)
        let fifth = Self.seqs(try await verify("plain text again", on: station, id: "dock1-3"))
        let sixth = try await Self.dock2Code("carton 2-3", to: cameras[2], on: station)
        let sixthShown = try await only.waitForSeq(sixth.verdict)
        #expect(sixthShown.outcome == "not_sealtrust")
        let seenByOnly = try await Self.seen(on: only)
        #expect(seenByOnly.isDisjoint(with: fifth), "the --lane dock2 bridge's page shows no dock1 event: \(seenByOnly.sorted())")
    }
}
