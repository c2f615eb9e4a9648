@testable import KioskBridge
import JSONCore
import Sentences
import StationWire
import Testing
import TestSupport
import Foundation

/// The bridge's pieces that stand between outside text and a screen, a log or a scraper.
struct BridgePartsTests {
    @Test func optionsFollowTheManPage() throws {
        #expect(try KioskOptions.parse([]) == .run(KioskOptions()))
        guard case .run(let options) = try KioskOptions.parse(["--listen", "[::1]:9000", "--lang", "fr", "--hold", "3", "--socket", "/tmp/s"]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.listen.description == "[::1]:9000" && options.listen.isIPv6)
        #expect(options.language == .fr && options.holdSeconds == 3 && options.socketPath == "/tmp/s")
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--hold", "0"]) }
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--hold", "3601"]) }
        #expect(try KioskOptions.parse(["--listen", "localhost:80"]) == .run(KioskOptions(listen: ListenAddress("127.0.0.1:80")!)))
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--listen", "example.com:80"]) }
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--allow-host", "evil.example/x"]) }
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--allow-host", ""]) }
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--listen", "127.0.0.1:70000"]) }
        #expect(throws: KioskOptions.Invalid.self) { try KioskOptions.parse(["--lang", "de"]) }
        #expect(try KioskOptions.parse(["--version"]) == .version)
    }

    @Test func outsideTextIsMadeHarmless() {
        #expect(KioskPage.htmlEscaped("<b a=\"x\">&'\u{7}") == "&lt;b a=&quot;x&quot;&gt;&amp;&#39;")
        #expect(Exposition.escapedLabel("ACS \"ACR\" 1\\2\nx\u{1}y") == "ACS \\\"ACR\\\" 1\\\\2\\nxy")
        #expect(printable("reader\u{1B}[31m\n") == "reader\\x1b[31m\\x0a")
        let frame = String(decoding: EventFrame.journaled(seq: 7, type: "verdict", line: "{\"a\":\r\n1}"), as: UTF8.self)
        #expect(frame == "id: 7\nevent: verdict\ndata: {\"a\":  1}\n\n", "a line break never starts a new field")
        let odd = String(decoding: EventFrame.journaled(seq: 8, type: "x\ny", line: "{}"), as: UTF8.self)
        #expect(odd == "id: 8\nevent: message\ndata: {}\n\n")
    }

    /// The latency histogram says how fast the station answers: a late verdict's latency is the outage it waited
    /// through, and is left out; its `deferred` verdict is counted.
    @Test func aLateVerdictsLatencyIsNotInTheHistogram() throws {
        let station = StationState(version: "test")
        station.record(event: try JSON.parse(#"{"type":"verdict","seq":2,"outcome":"deferred","latency_ms":40}"#))
        station.record(event: try JSON.parse(#"{"type":"verdict","seq":3,"outcome":"authentic","latency_ms":600000,"late":true,"deferred_seq":2}"#))
        let metrics = station.metrics()
        #expect(metrics.contains("sealtrust_verdict_latency_seconds_count 1"), "\(metrics)")
        #expect(metrics.contains("sealtrust_verdict_latency_seconds_bucket{le=\"+Inf\"} 1"), "\(metrics)")
    }

    @Test func aHostIsTheListenAddressLocalhostOrAnAllowedName() {
        let loopback = AllowedHosts(listen: ListenAddress("127.0.0.1:8080")!, extra: ["kiosk.example"])
        for host in ["127.0.0.1", "127.0.0.1:8080", "localhost:9", "Kiosk.Example", "kiosk.example:8080"] {
            #expect(loopback.permits(host), "\(host)")
        }
        #expect(loopback.permits(nil), "no Host: nothing to rebind")
        for host in ["", "evil.example", "127.0.0.2", "[::1]", "localhost:123456", "localhost:8080:1", "127.0.0.1 ", "kiosk.example.evil"] {
            #expect(!loopback.permits(host), "\(host)")
        }
        let everywhere = AllowedHosts(listen: ListenAddress("[::]:8080")!, extra: [])
        #expect(everywhere.permits("[2001:db8::1]:8080") && everywhere.permits("192.0.2.10") && everywhere.permits("localhost"))
        #expect(!everywhere.permits("station.example") && !everywhere.permits("[station.example]"))
    }

    @Test func aLastEventIDIsASeqOrNothing() {
        #expect(KioskRoutes.seq("1041") == 1041)
        #expect(KioskRoutes.seq("") == nil && KioskRoutes.seq("-1") == nil && KioskRoutes.seq("1e3") == nil)
        #expect(KioskRoutes.seq("99999999999999999999") == nil, "beyond UInt64")
        #expect(KioskRoutes.seq(" 12") == nil)
    }

    /// A page that resumes beyond the journal's end gets every event after its request, even one the daemon
    /// journaled before the replay read the seam and the bridge's feed brought only afterwards.
    @Test func aResumeBeyondTheEndMissesNoEventThatCameAfterIt() {
        let hub = EventHub()
        hub.publish(seq: 3, frame: Array("3".utf8))
        let stream = hub.open(resumeAfter: .max)
        hub.finishResume(stream, replayed: [], seam: 4)   // the daemon had journaled 4; the feed had not brought it
        hub.publish(seq: 4, frame: Array("4".utf8))
        hub.publish(seq: 5, frame: Array("5".utf8))
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
        #expect(String(decoding: buffer[..<count], as: UTF8.self).hasSuffix("45"), "the events after the request, none skipped")
    }

    /// What a stream's first read brings.
    static func opening(of stream: EventStream) -> String {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// A page opened while the station shows a verdict shows it for the time it has left; opened after that time,
    /// after a scan, or while the daemon is unreachable, it shows nothing older.
    /// What an event of `type` with no `at` does to the screen, after the newest scan `newest`.
    static func change(_ type: EventType, hold: Duration, newest: inout String?) -> ScreenChange {
        let page = PageEvent(seq: 1, type: .event(type), line: "{}", json: .object([]), hold: hold, nowMilliseconds: 0)
        return ScreenChange.of(page, newestScanID: &newest)
    }

    @Test func aNewPageGetsWhatTheStationShowsNowWithTheTimeItHasLeft() {
        var newest: String?
        let hub = EventHub()
        hub.setOnline(true)
        let start = ContinuousClock.now
        let verdict = EventFrame.journaled(seq: 7, type: "verdict", line: #"{"type":"verdict","seq":7}"#)
        hub.publish(seq: 7, frame: verdict, screen: Self.change(.verdict, hold: .seconds(8), newest: &newest), at: start)
        let during = Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(3)))
        #expect(during.hasSuffix("event: hold\ndata: {\"remaining_ms\":5000}\n\n" + String(decoding: verdict, as: UTF8.self)), "\(during)")
        #expect(!Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(8))).contains("verdict"), "its hold is over")
        #expect(!Self.opening(of: hub.open(resumeAfter: 3, at: start + .seconds(3))).contains("event: hold"), "a resuming page replays instead")
        hub.setOnline(false)
        #expect(!Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(3))).contains("verdict"), "offline is what it shows")
        hub.setOnline(true)
        #expect(!Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(3))).contains("verdict"),
                "back online, the pages open since show idle")
        hub.publish(seq: 7, frame: verdict, screen: Self.change(.verdict, hold: .seconds(8), newest: &newest), at: start + .seconds(3))
        hub.publish(seq: 8, frame: Array("scan".utf8), screen: Self.change(.scan, hold: .seconds(8), newest: &newest), at: start + .seconds(4))
        #expect(!Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(5))).contains("verdict"), "a scan clears the screen")
        let readError = EventFrame.journaled(seq: 9, type: "read_error", line: #"{"type":"read_error","seq":9}"#)
        hub.publish(seq: 9, frame: readError, screen: Self.change(.readError, hold: .seconds(30), newest: &newest), at: start + .seconds(5))
        #expect(Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(6))).contains("{\"remaining_ms\":3000}"),
                "a read error stays 4 s at most")
        hub.publish(seq: 10, frame: Array("source".utf8), screen: Self.change(.source, hold: .seconds(8), newest: &newest), at: start + .seconds(6))
        #expect(Self.opening(of: hub.open(resumeAfter: nil, at: start + .seconds(7))).contains("read_error"), "a source event changes no screen")
    }

    /// outputs.md, "What leaves the machine": a chip URL is a one-time proof until the API answered it; the page's
    /// stream never carries it. A printed code's scan keeps its string.
    @Test func theStreamNeverCarriesAChipURL() throws {
        let chipURL = "https://sealtrust.io/t/4F1C2A?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"
        let chip: JSON = .object([("type", "scan"), ("seq", 3), ("scan_id", "s-3"), ("raw", .string(chipURL)), ("code", "chip")])
        let frame = PageEvent(seq: 3, type: .event(.scan), line: chip.encoded(), json: chip, hold: .seconds(8), nowMilliseconds: 0).frame
        let text = String(decoding: frame, as: UTF8.self)
        #expect(!text.contains("picc_data") && !text.contains("sealtrust.io/t/"), "\(text)")
        #expect(text.contains("\"raw_withheld\":true") && text.contains("\"scan_id\":\"s-3\""), "\(text)")
        let printed: JSON = .object([("type", "scan"), ("seq", 4), ("raw", "https://sealtrust.io/p/SN-00042"), ("code", "printed_serial")])
        let kept = PageEvent(seq: 4, type: .event(.scan), line: printed.encoded(), json: printed, hold: .seconds(8), nowMilliseconds: 0)
        #expect(String(decoding: kept.frame, as: UTF8.self).contains("SN-00042"))
    }

    /// A verdict older than the hold (a replay after the kiosk restarted) is history: the page is told it has no
    /// time left, and the screen does not change; a fresh one gets what is left of its hold.
    @Test func anOldVerdictIsHistoryNotTheScreen() throws {
        let at = "2026-12-07T10:00:00.000Z"
        let written = try #require(EventTime.milliseconds(at))
        let verdict: JSON = .object([("type", "verdict"), ("seq", 9), ("scan_id", "s-9"), ("at", .string(at))])
        var newest: String?
        let old = PageEvent(seq: 9, type: .event(.verdict), line: verdict.encoded(), json: verdict, hold: .seconds(8),
                            nowMilliseconds: written + 20_000)
        #expect(String(decoding: old.frame, as: UTF8.self).hasPrefix("event: hold\ndata: {\"remaining_ms\":0}\n\n"))
        #expect(ScreenChange.of(old, newestScanID: &newest) == .unchanged)
        let fresh = PageEvent(seq: 9, type: .event(.verdict), line: verdict.encoded(), json: verdict, hold: .seconds(8),
                              nowMilliseconds: written + 1_500)
        #expect(String(decoding: fresh.frame, as: UTF8.self).hasPrefix("event: hold\ndata: {\"remaining_ms\":6500}\n\n"))
        #expect(ScreenChange.of(fresh, newestScanID: &newest) == .shows(for: .milliseconds(6_500)))
    }

    /// A verdict for an older scan than the newest never replaces what the screen shows (a genuine chip's late
    /// `authentic` over the copy's `replay` tapped after it).
    @Test func aLateVerdictNeverReplacesTheNewestScansScreen() {
        func event(_ type: EventType, scan: String) -> PageEvent {
            let json: JSON = .object([("type", .string(type.rawValue)), ("scan_id", .string(scan))])
            return PageEvent(seq: 1, type: .event(type), line: json.encoded(), json: json, hold: .seconds(8), nowMilliseconds: 0)
        }
        var newest: String?
        #expect(ScreenChange.of(event(.scan, scan: "genuine"), newestScanID: &newest) == .clears)
        #expect(ScreenChange.of(event(.scan, scan: "copy"), newestScanID: &newest) == .clears)
        #expect(ScreenChange.of(event(.verdict, scan: "copy"), newestScanID: &newest) == .shows(for: .seconds(8)))
        #expect(ScreenChange.of(event(.verdict, scan: "genuine"), newestScanID: &newest) == .unchanged)
    }

    /// A theme may change colours, never invert the screens: an alert or a printed code in the good colour, or words
    /// in their background's colour, is refused with its name; a name given twice is refused as texts refuse an id.
    @Test func aThemeThatWouldInvertAScreenIsRefused() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/theme.json"
        for (theme, said) in [(##"{"alert": "#0a5c2a"}"##, "alert must not be good's colour"),
                              (##"{"good": "#ABC", "identified": "#aabbcc"}"##, "identified must not be good's colour"),
                              (##"{"text": "#3d2c6b"}"##, "text must not be identified's colour"),
                              (##"{"accent": "#fff"}"##, "theft banner"),
                              (##"{"good": "#111111", "good": "#222222"}"##, "good is given twice")] {
            try theme.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: KioskOptions.Invalid.self) { try KioskTheme.read(path) }
            do { _ = try KioskTheme.read(path) } catch { #expect(error.description.contains(said), "\(error.description)") }
        }
        try ##"{"good": "#0b6e35", "identified": "#442266"}"##.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try KioskTheme.read(path).colours[.identified] == "#442266")
    }

    /// The page's template is filled in one pass: a sentence that holds a placeholder's name keeps those letters, and
    /// nothing of one value is searched again for another.
    @Test func aSentenceThatNamesAPlaceholderStaysText() {
        var words = KioskWords.english
        words.idle = "Tap here {{WORDS}} {{TITLE}}"
        words.title = "Station {{IDLE}}"
        let page = KioskPage.document(language: .en, words: words, holdSeconds: 8).text
        #expect(page.contains("<title>Station {{IDLE}}</title>") && page.contains("Tap here {{WORDS}} {{TITLE}}"))
        #expect(page.components(separatedBy: "const words = ").count == 2, "the words JSON once, where the script wants it")
        #expect(KioskPage.filled("a {{X}} {{Y}} {{ b", with: ["X": "{{Y}}", "Y": "y"]) == "a {{Y}} y {{ b")
    }

    @Test func thePageCarriesNothingFromElsewhere() {
        let page = KioskPage.document(language: .fr, words: .french, holdSeconds: 5).text
        #expect(page.contains("<html lang=\"fr\" data-hold=\"5\" data-page=\""))
        #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("src="), "no external assets")
        #expect(page.contains("aria-live=\"assertive\""))
        #expect(!page.contains("innerHTML"), "text from the daemon goes in as text")
    }

    @Test func theHistogramCountsEachVerdictInItsBuckets() {
        var histogram = LatencyHistogram()
        histogram.record(milliseconds: 40)
        histogram.record(milliseconds: 700)
        histogram.record(milliseconds: -5)
        #expect(histogram.total == 2)
        #expect(histogram.counts[LatencyHistogram.bounds.firstIndex(of: 0.05)!] == 1)
        #expect(histogram.counts.last == 2)
    }
}
