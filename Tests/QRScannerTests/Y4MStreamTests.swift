import Foundation
import QRScanner
import Testing

@Suite("QR codes read from YUV4MPEG2 files", .timeLimit(.minutes(1)))
struct Y4MStreamTests {
    @Test func aCodeHeldInViewScansOnceAndAgainOnlyAfterLeavingForTheRescanTime() async {
        let path = Fixtures.stream("appearances")
        let events = await collectEvents(QRScanner(source: .y4m(path: path)))
        let payload = Fixtures.payload(of: "appearances")
        // In view 1.5 s, out 0.5 s, back, out 3 s, back: the short absence is not a new appearance.
        #expect(events == [
            .sourceReady(id: "y4m:\(path)", detail: "320x240 Y4M 10 fps C420jpeg"),
            .code(source: "y4m:\(path)", payload: payload),
            .code(source: "y4m:\(path)", payload: payload),
            .sourceRemoved(id: "y4m:\(path)", detail: "end of stream after 73 frames"),
        ])
    }

    @Test func aShorterRescanTimeScansTheBriefReturnToo() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("appearances")), rescanAfter: .milliseconds(300)))
        #expect(events.codes == Array(repeating: Fixtures.payload(of: "appearances"), count: 3))
    }

    @Test func twoDifferentCodesInOneFrameAreTwoScans() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("two-codes"))))
        let expected = Fixtures.streamManifest["two-codes"]?.payloads ?? []
        #expect(expected.count == 2)
        #expect(events.codes.sorted() == expected.sorted())
    }

    @Test func aFullCapacityVersion40CodeIsReadWhole() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("full-capacity"))))
        let expected = Fixtures.payload(of: "full-capacity")
        #expect(expected.utf8.count == 2953)
        #expect(events.codes == [expected])
    }

    @Test func aBinaryPayloadIsUnreadableNeverAScan() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("binary"))))
        #expect(events.codes.isEmpty)
        #expect(events.unreadable.count == 1)
        #expect(events.unreadable.first?.hasPrefix("invalid_utf8") == true)
    }

    @Test func accentedLettersComeThroughByteForByte() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("accented"))))
        let expected = Fixtures.payload(of: "accented")
        #expect(events.codes == [expected])
        #expect(events.codes.first.map { Array($0.utf8) } == Array(expected.utf8))
    }

    @Test func aNulByteInsideThePayloadIsKept() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("nul"))))
        #expect(events.codes == ["ST\u{0}NUL-inside"])
    }

    @Test func anotherBrandsCodeIsHandedOnUnchanged() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("gs1"))))
        #expect(events.codes == ["https://id.gs1.org/01/09506000134352"])
    }

    @Test(arguments: ["colour-420jpeg", "colour-420paldv", "colour-420mpeg2", "colour-420", "colour-422", "colour-444", "colour-mono", "colour-default"])
    func everyColourSpaceGivesItsYPlane(name: String) async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream(name))))
        #expect(events.errors.isEmpty)
        #expect(events.codes == [Fixtures.payload(of: "colour-spaces")])
        #expect(events.removals == ["end of stream after 2 frames"])
        let space = name == "colour-default" ? "420jpeg" : String(name.dropFirst("colour-".count))
        #expect(events.readyDetails == ["321x241 Y4M 29.97 fps C\(space)"])
    }

    @Test(arguments: [
        ("bad-magic", "bad header: not a YUV4MPEG2 stream"),
        ("missing-width", "bad header: missing width or height"),
        ("bad-colour", "bad header: unsupported colour space C411"),
        ("bad-rate", "bad header: bad frame rate \"F10:0\""),
        ("huge-size", "bad header: frame size 999999x999999 out of range"),
        ("no-newline", "bad header: no end of line"),
        ("empty", "bad header: empty stream"),
    ])
    func aCorruptHeaderIsReportedAndTheFileEnds(name: String, reason: String) async {
        let path = Fixtures.stream(name)
        let events = await collectEvents(QRScanner(source: .y4m(path: path)))
        #expect(events.count == 1)
        #expect(events.errors.count == 1)
        #expect(events.errors.first?.hasPrefix(reason) == true, "\(events)")
    }

    @Test func aTruncatedFrameIsReportedAfterTheCodesBeforeIt() async {
        let path = Fixtures.stream("truncated")
        let events = await collectEvents(QRScanner(source: .y4m(path: path)))
        #expect(events.codes == ["https://id.gs1.org/01/09506000134352"])
        #expect(events.errors == ["truncated frame 1: 25600 of 115200 bytes"])
        #expect(events.last == .sourceRemoved(id: "y4m:\(path)", detail: "stream broken after 1 frames"))
    }

    @Test func garbageInsteadOfAFrameMarkerIsReported() async {
        let events = await collectEvents(QRScanner(source: .y4m(path: Fixtures.stream("bad-frame-marker"))))
        #expect(events.codes == ["https://id.gs1.org/01/09506000134352"])
        #expect(events.errors == ["bad frame header at frame 1: \"FRAMX\""])
    }

    @Test func aPathThatDoesNotExistYetIsAbsentThenReadWhenItAppears() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qr-later-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scanner = QRScanner(source: .y4m(path: path))
        var events: [QREvent] = []
        for await event in scanner.events() {
            events.append(event)
            if event == .sourceAbsent(id: "y4m:\(path)") {
                try FileManager.default.copyItem(atPath: Fixtures.stream("gs1"), toPath: path)
            }
        }
        #expect(events.first == .sourceAbsent(id: "y4m:\(path)"))
        #expect(events.codes == ["https://id.gs1.org/01/09506000134352"])
        #expect(events.removals == ["end of stream after 1 frames"])
    }
}
