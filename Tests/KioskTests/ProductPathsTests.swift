import Foundation
import JSONCore
import KioskHarness
import StationClient
import StationWire
import Testing
import TestSupport

/// `/passport` and `/certificate.svg` over HTTP, from the real bridge, daemon and sandbox, without a browser: what a
/// program (or the page) gets for each scan_id, and the bridge's bounds when the daemon is slow or gone.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProductPathsTests {
    @Test func eachScanIDGetsItsProductOrAStatusThatSaysWhyNot() async throws {
        let rig = try StationRig(hold: 60)
        let station = try await rig.connect()
        defer { station.close() }
        let port = rig.kiosk.port
        let events = try HTTPProbe(port: port)
        #expect(events.get("/events") && events.readHead()?.status == 200)

        for path in ["/passport", "/passport?scan_id=", "/passport?scan_id=" + String(repeating: "a", count: 129),
                     "/certificate.svg?scan_id=a%2Fb", "/passport?scan_id=%C3%A9"] {
            let refused = try httpGet(port: port, path: path)
            #expect(refused.status == 400 && refused.headers["content-type"] == "application/json", "\(path): \(refused)")
            #expect((try? JSON.parse(refused.body))?["error"] == "bad_scan_id", "an error is a JSON object: \(refused.body)")
        }
        let unknown = try httpGet(port: port, path: "/passport?scan_id=" + String(repeating: "a", count: 128))
        #expect(unknown.status == 404 && unknown.headers["content-type"] == "application/json", "\(unknown)")

        // An item's printed code: the daemon's answer, as JSON, without the bridge's own command id.
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "SN-00042")
        let scanID = try #require(verdict["scan_id"]?.stringValue)
        let found = try httpGet(port: port, path: "/passport?scan_id=\(scanID)")
        #expect(found.status == 200 && found.headers["content-type"] == "application/json", "\(found)")
        let answer = try JSON.parse(found.body)
        #expect(answer["type"] == "passport" && answer["id"] == nil && answer["product_name"] == "Chronograph 42", "\(found.body)")
        #expect(answer["proof"]?["anchoring"] == "anchored" && answer["access_tier"] == "public", "\(found.body)")
        #expect(answer["about"] == "named_item" && answer["certificate"]?["pdf_url"] == nil, "no certificate to keep: \(found.body)")
        #expect(try httpGet(port: port, path: "/certificate.svg?scan_id=\(scanID)").status == 404, "no code for a printed code")

        // HEAD: the same head, no body.
        let probe = try HTTPProbe(port: port)
        #expect(probe.send("HEAD /passport?scan_id=\(scanID) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        let head = probe.readHead()
        #expect(head?.status == 200 && head?.headers["content-type"] == "application/json", "\(String(describing: head))")
        #expect(head?.headers["content-length"] == found.headers["content-length"], "\(String(describing: head))")
        #expect(probe.readBody(length: 1, timeout: .seconds(5)) == nil, "no body after the HEAD's head")

        // A genuine chip's valid certificate: its code to keep.
        let (_, genuine) = try await verify(try mintChipURL("authentic", counter: 50), on: station, id: "chip")
        let code = try httpGet(port: port, path: "/certificate.svg?scan_id=\(try #require(genuine["scan_id"]?.stringValue))")
        #expect(code.status == 200 && code.headers["content-type"] == "image/svg+xml" && code.body.hasPrefix("<svg "), "\(code.headers)")

        // SN-00050 has no certificate: its passport says so, and there is no code to draw.
        let (_, uncertified) = try await verify("https://sealtrust.io/p/SN-00050", on: station, id: "SN-00050")
        let uncertifiedScan = try #require(uncertified["scan_id"]?.stringValue)
        let noCode = try httpGet(port: port, path: "/certificate.svg?scan_id=\(uncertifiedScan)")
        #expect(noCode.status == 404, "\(noCode)")
        let noCertificate = try JSON.parse(httpGet(port: port, path: "/passport?scan_id=\(uncertifiedScan)").body)
        #expect(noCertificate["certificate"]?["outcome"] == "not_found" && noCertificate["certificate"]?["pdf_url"] == nil)

        // The daemon gone: a question nobody can answer is 503 at once.
        rig.stopDaemon()
        while let event = events.nextEvent(timeout: .seconds(20)), !(event.name == "station" && event.data.contains("\"offline\"")) {}
        let away = try httpGet(port: port, path: "/passport?scan_id=asked-while-away")
        #expect(away.status == 503 && away.headers["content-type"] == "application/json", "\(away)")
    }

    /// The daemon's reads held at the certificate: the request waits, suspended, while the bridge serves others, and
    /// gets 504 once the bridge's patience (8 s) is over; the next request asks again.
    @Test func aDaemonThatDoesNotAnswerIsA504AndHoldsNothingElse() async throws {
        let rig = try StationRig(hold: 60)
        let station = try await rig.connect()
        defer { station.close() }
        let port = rig.kiosk.port
        try await rig.api.fault(path: "/certificate/", hold: true)
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00043", on: station, id: "SN-00043")
        let scanID = try #require(verdict["scan_id"]?.stringValue)

        let waiting = try HTTPProbe(port: port)
        let asked = ContinuousClock.now
        #expect(waiting.get("/passport?scan_id=\(scanID)"))
        #expect(try httpGet(port: port, path: "/healthz").status == 200, "the server's thread is not waiting")
        #expect(try httpGet(port: port, path: "/passport?scan_id=not-a-scan").status == 404, "nor is the daemon's socket")
        let late = waiting.readHead(timeout: .seconds(15))
        let waited = ContinuousClock.now - asked
        #expect(late?.status == 504 && late?.headers["content-type"] == "application/json", "\(String(describing: late))")
        #expect(waited >= .seconds(8) && waited < .seconds(12), "\(waited)")

        try await rig.api.release()
        let again = try httpGet(port: port, path: "/passport?scan_id=\(scanID)", timeout: .seconds(15))
        #expect(again.status == 200, "\(again)")
        #expect(try JSON.parse(again.body)["proof"]?["anchoring"] == "never_anchored", "\(again.body)")
    }
}
