import Foundation
import Glibc
import HandheldScanner
import JSONCore
import Testing
import TestSupport

/// A daemon with one handheld scanner, its events watched from the socket.
final class ScannerStation {
    let api: SandboxAPI
    let daemon: ScanDaemon
    let watcher: LineClient
    let sourceID: String
    private let hello: JSON

    init(scanner: (String) throws -> String, extra: [String] = []) throws {
        api = try SandboxAPI.start()
        let directory = try makeScratchDirectory()
        let spec = try scanner(directory)
        sourceID = try ScannerSpec(parsing: spec).id
        daemon = try ScanDaemon(api: api, extra: ["--scanner", spec] + extra, directory: directory).waitUntilListening()
        (watcher, hello) = try daemon.connect()
    }

    /// A station whose serial scanner is `usb-Scanner-if00`, a by-id style link in its scratch folder to `slavePath`
    /// (then `suffix`, such as a baud rate); a test replugs the port by pointing the link at a new pty.
    static func serial(linkedTo slavePath: String, suffix: String = "") throws -> (station: ScannerStation, link: String) {
        var link = ""
        let station = try ScannerStation(scanner: { directory in
            link = directory + "/usb-Scanner-if00"
            guard symlink(slavePath, link) == 0 else { throw HarnessError("symlink failed") }
            return "serial:\(link)\(suffix)"
        })
        return (station, link)
    }

    /// The scanner's entry once it is ready: from `hello` when it was ready before we connected.
    func ready() throws -> JSON? {
        let known = hello["sources"]?.arrayValue?.first { $0["id"]?.string == sourceID && $0["state"]?.string == "ready" }
        return try known ?? source("ready")
    }

    deinit {
        watcher.close()
        _ = daemon.terminate()
        daemon.removeDirectory()
        api.stop()
    }

    /// Waits for the scanner's next `source` event in `state`.
    func source(_ state: String) throws -> JSON? {
        try watcher.next(timeout: .seconds(10)) {
            $0["type"]?.string == "source" && $0["id"]?.string == sourceID && $0["state"]?.string == state
        }
    }

    /// The next `scan` and its `verdict`, and every `scan` seen on the way.
    func scanAndVerdict() throws -> (scan: JSON, verdict: JSON, scansSeen: [JSON]) {
        var seen: [JSON] = []
        guard let scan = try watcher.next(timeout: .seconds(15), seen: &seen, where: { $0["type"]?.string == "scan" }),
              let verdict = try watcher.next(timeout: .seconds(15), seen: &seen, where: {
                  $0["type"]?.string == "verdict" && $0["scan_id"] == scan["scan_id"]
              })
        else { throw HarnessError("no scan and verdict; saw \(seen.map { $0.encoded() })") }
        return (scan, verdict, seen.filter { $0["type"]?.string == "scan" })
    }

    /// The next event that is a scan or a read error.
    func nextRead() throws -> JSON {
        guard let event = try watcher.next(timeout: .seconds(15), where: {
            $0["type"]?.string == "scan" || $0["type"]?.string == "read_error"
        }) else { throw HarnessError("no scan nor read_error; the daemon said: \(daemon.process.standardError.suffix(1500))") }
        return event
    }

    /// The scanner's first `source` event: from the journal when `hello` shows it had a state before we connected
    /// (`hello` carries no detail), else as it comes.
    func firstState() throws -> JSON {
        if hello["sources"]?.arrayValue?.contains(where: { $0["id"]?.string == sourceID }) == true {
            let segments = try FileManager.default.contentsOfDirectory(atPath: daemon.journalPath).filter { $0.hasSuffix(".jsonl") }.sorted()
            for segment in segments {
                for line in try String(contentsOfFile: daemon.journalPath + "/" + segment, encoding: .utf8).split(separator: "\n") {
                    let event = try JSON.parse(String(line))
                    if event["type"]?.string == "source" && event["id"]?.string == sourceID { return event }
                }
            }
        }
        guard let event = try watcher.next(timeout: .seconds(10), where: { $0["type"]?.string == "source" && $0["id"]?.string == sourceID })
        else { throw HarnessError("no source event; the daemon said: \(daemon.process.standardError.suffix(1500))") }
        return event
    }

    /// The next scan, read error, or this scanner going `removed` or `error`: a first line that is lost shows as
    /// what came instead of it. (`ready` is passed over: `hello` may show it before its event arrives.)
    func nextReadOrSourceChange() throws -> JSON {
        guard let event = try watcher.next(timeout: .seconds(10), where: {
            $0["type"]?.string == "scan" || $0["type"]?.string == "read_error"
                || ($0["type"]?.string == "source" && $0["id"]?.string == sourceID && $0["state"]?.string != "ready")
        }) else { throw HarnessError("no scan, read_error nor source event; the daemon said: \(daemon.process.standardError.suffix(1500))") }
        return event
    }

    func passportPaths() async throws -> [String] {
        try await api.requests().map(\.path).filter { $0.hasPrefix("/passport/") || $0.hasPrefix("/scans/") }.sorted()
    }
}

/// A FIFO the daemon reads as a keyboard-wedge scanner's evdev node, written by the test.
final class RecordWriter {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HarnessError("open \(path): \(String(cString: strerror(errno)))") }
    }

    func write(_ events: [InputEvent]) throws {
        let bytes = events.records
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw HarnessError("write: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    deinit { close(descriptor) }
}

func fifoScanner(_ directory: String) throws -> String {
    let path = directory + "/usb-Scanner-event-kbd"
    guard mkfifo(path, 0o600) == 0 else { throw HarnessError("mkfifo: \(String(cString: strerror(errno)))") }
    return "evdev:" + path
}

@Suite(.serialized, .timeLimit(.minutes(1)))
struct KeyboardWedgeScannerTests {
    /// Shift for the capitals and `%`, AltGr for `@` on QWERTZ and AZERTY, Shift for `/` and `:` on AZERTY.
    static let printedURL = "https://sealtrust.io/p/SN-2024%2F07%20%C3%A9%231?by=ops@dock-3"

    @Test(arguments: KeymapLayout.allCases)
    func aURLTypedInEachLayoutReachesTheAPIByteForByte(layout: KeymapLayout) async throws {
        let station = try ScannerStation(scanner: fifoScanner, extra: ["--scanner-keymap", layout.rawValue])
        let ready = try station.ready()
        #expect(ready?["medium"]?.string == "hid")
        let writer = try RecordWriter(path: String(station.sourceID.dropFirst("evdev:".count)))
        var typist = KeyboardTypist(layout: layout)
        try writer.write(typist.type(Self.printedURL))
        let (scan, verdict, _) = try station.scanAndVerdict()
        #expect(scan["raw"]?.string == Self.printedURL)
        #expect(scan["source"]?.string == station.sourceID && scan["medium"]?.string == "hid")
        #expect(verdict["outcome"]?.string == "identified")
        #expect(try await station.passportPaths() == ["/passport/SN-2024%2F07%20%C3%A9%231"])
    }

    @Test func eachWayACodeIsTypedOrCutShortEndsAsItShould() async throws {
        let station = try ScannerStation(scanner: fifoScanner)
        _ = try station.ready()
        let writer = try RecordWriter(path: String(station.sourceID.dropFirst("evdev:".count)))
        var typist = KeyboardTypist(layout: .us)

        // A code ended by Tab, read twice within --rescan-after: one scan.
        try writer.write(typist.type("https://sealtrust.io/p/SN-00042", terminator: KeyboardTypist.tab)
                         + typist.type("https://sealtrust.io/p/SN-00042", terminator: KeyboardTypist.tab))
        let tabbed = try station.scanAndVerdict()
        #expect(tabbed.scan["raw"]?.string == "https://sealtrust.io/p/SN-00042" && tabbed.verdict["outcome"]?.string == "identified")

        // Keypad digits.
        var events = typist.type("https://id.sealtrust.io/01/", terminator: nil)
        let keypad: [Character: UInt16] = ["0": 82, "1": 79, "2": 80, "3": 81, "4": 75, "5": 76, "6": 77, "7": 71, "8": 72, "9": 73]
        for digit in "03701234567890" { events += typist.key(.init(code: keypad[digit]!)) }
        events += typist.type("/21/SN-00043")
        try writer.write(events)
        let keypadScan = try station.scanAndVerdict()
        #expect(keypadScan.scansSeen.count == 1, "the repeated SN-00042 was not scanned again")
        #expect(keypadScan.scan["raw"]?.string == "https://id.sealtrust.io/01/03701234567890/21/SN-00043")

        // Caps Lock on for "sn", off again.
        events = typist.type("https://sealtrust.io/p/", terminator: nil) + typist.key(.init(code: 58))
        events += typist.type("sn", terminator: nil) + typist.key(.init(code: 58)) + typist.type("-00044")
        try writer.write(events)
        #expect(try station.scanAndVerdict().scan["raw"]?.string == "https://sealtrust.io/p/SN-00044")

        // FNC1 as Ctrl+]: kept as the byte 0x1D; not a SealTrust code, so no call.
        try writer.write(typist.type("]d2", terminator: nil) + typist.key(.init(code: 27, control: true)) + typist.type("0103701234567890"))
        let gs1 = try station.scanAndVerdict()
        #expect(gs1.scan["raw"]?.string == "]d2\u{1D}0103701234567890")
        #expect(gs1.verdict["outcome"]?.string == "not_sealtrust")

        // SYN_DROPPED in the middle of a code: incomplete, its tail thrown away.
        events = typist.type("https://sealtrust.io/p/SN-0", terminator: nil)
        events.append(typist.event(type: InputEvent.synchronisation, code: InputEvent.dropped, value: 0))
        events.append(typist.event(type: InputEvent.synchronisation, code: InputEvent.report, value: 0))
        events += typist.type("0045")
        try writer.write(events)
        let dropped = try station.nextRead()
        #expect(dropped["type"]?.string == "read_error" && dropped["reason"]?.string == "incomplete")
        #expect(dropped["medium"]?.string == "hid" && dropped["source"]?.string == station.sourceID)

        // Two codes 5 ms apart: two scans, in order.
        events = typist.type("https://sealtrust.io/p/SN-00046")
        typist.wait(microseconds: 5_000)
        events += typist.type("https://sealtrust.io/p/SN-00048")
        try writer.write(events)
        let first = try station.nextRead(), second = try station.nextRead()
        #expect([first["raw"]?.string, second["raw"]?.string] == ["https://sealtrust.io/p/SN-00046", "https://sealtrust.io/p/SN-00048"])

        // A partial code, then silence.
        try writer.write(typist.type("https://sealtrust.io/p/SN-000", terminator: nil))
        let partial = try station.nextRead()
        #expect(partial["reason"]?.string == "incomplete")
        #expect(partial["message"]?.string == "The code was not read whole. Scan it again.")
        typist.wait(microseconds: 200_000)

        // A key with no character (Esc).
        try writer.write(typist.type("https://sealtrust.io/p/SN", terminator: nil) + typist.key(.init(code: 1)) + typist.type("-00049"))
        #expect(try station.nextRead()["reason"]?.string == "unmapped_key")

        // 4,097 characters.
        try writer.write(typist.type("https://sealtrust.io/p/SN-00050?" + String(repeating: "a", count: 4097 - 32)))
        #expect(try station.nextRead()["reason"]?.string == "too_long")

        // Only the whole SealTrust codes were asked about.
        try writer.write(typist.type("https://sealtrust.io/p/SN-00091"))
        #expect(try station.scanAndVerdict().scan["raw"]?.string == "https://sealtrust.io/p/SN-00091")
        #expect(try await station.passportPaths() == ["/passport/SN-00042", "/passport/SN-00043", "/passport/SN-00044",
                                                      "/passport/SN-00046", "/passport/SN-00048", "/passport/SN-00091"])
    }
}

@Suite(.serialized, .timeLimit(.minutes(1)))
struct SerialScannerTests {
    @Test func linesOverAPseudoTerminalAreScansAndThePortIsPickedUpAgain() async throws {
        var terminal = try PseudoTerminal()
        let (station, link) = try ScannerStation.serial(linkedTo: terminal.slavePath, suffix: "@115200")
        let ready = try station.ready()
        #expect(ready?["medium"]?.string == "serial" && ready?["id"]?.string == "serial:\(link)")

        // CR, LF and CRLF; the same code twice within --rescan-after is one scan.
        try terminal.write(Array("https://sealtrust.io/p/SN-00042\rhttps://sealtrust.io/p/SN-00042\n".utf8))
        try terminal.write(Array("https://sealtrust.io/p/SN-00043\nhttps://id.sealtrust.io/01/03701234567890/21/SN-00044\r\n".utf8))
        var raws: [String?] = []
        for _ in 0..<3 { raws.append(try station.nextRead()["raw"]?.string) }
        #expect(raws == ["https://sealtrust.io/p/SN-00042", "https://sealtrust.io/p/SN-00043",
                         "https://id.sealtrust.io/01/03701234567890/21/SN-00044"])

        // A code split across many writes.
        for byte in "https://sealtrust.io/p/SN-00045\r\n".utf8 { try terminal.write([byte]) }
        let split = try station.nextRead()
        #expect(split["raw"]?.string == "https://sealtrust.io/p/SN-00045" && split["medium"]?.string == "serial", "\(split.encoded())")

        // An over-long line.
        try terminal.write(Array(("https://sealtrust.io/p/SN-00046?" + String(repeating: "x", count: 4097)).utf8) + [0x0D])
        let long = try station.nextRead()
        #expect(long["type"]?.string == "read_error" && long["reason"]?.string == "too_long" && long["medium"]?.string == "serial")

        // Unplugged (udev removes the by-id link with the port; the link goes first here, since pty numbers are
        // reused at once and a stale link would lead to another test's pty), then back under the same by-id name.
        #expect(unlink(link) == 0)
        terminal.close()
        #expect(try station.source("removed") != nil)
        terminal = try PseudoTerminal()
        #expect(symlink(terminal.slavePath, link) == 0)
        #expect(try station.source("ready") != nil)
        try terminal.write(Array("https://sealtrust.io/p/SN-00048\r".utf8))
        let (scan, verdict, _) = try station.scanAndVerdict()
        #expect(scan["raw"]?.string == "https://sealtrust.io/p/SN-00048" && verdict["outcome"]?.string == "identified")
        #expect(try await station.passportPaths() == ["/passport/SN-00042", "/passport/SN-00043", "/passport/SN-00044",
                                                      "/passport/SN-00045", "/passport/SN-00048"])
    }

    /// A port that another daemon already reads (one left running with a path a new pty has taken: pty numbers are
    /// reused at once) is not shared: before, the two split its lines, and the first line after `ready` was often
    /// the one lost. The second daemon says the port is in use, every line reaches the first, and once the first
    /// stops the second picks the port up.
    @Test func aPortIsReadByOneDaemonAtATime() throws {
        let terminal = try PseudoTerminal()
        let (first, link) = try ScannerStation.serial(linkedTo: terminal.slavePath)
        _ = try first.ready()
        let second = try ScannerStation(scanner: { _ in "serial:\(link)" })
        let refused = try second.firstState()
        #expect(refused["state"]?.string == "error" && refused["detail"]?.string == "in use by another program", "\(refused.encoded())")
        for round in 1...20 {
            let code = "ONE-READER-\(round)"
            try terminal.write(Array((code + "\r").utf8))
            let read = try first.nextReadOrSourceChange()
            #expect(read["type"]?.string == "scan" && read["raw"]?.string == code, "round \(round): \(read.encoded())")
        }
        #expect(first.daemon.terminate() == 0)
        #expect(try second.source("ready") != nil)
        try terminal.write(Array("ONE-READER-HANDED-OVER\r".utf8))
        #expect(try second.nextRead()["raw"]?.string == "ONE-READER-HANDED-OVER", "the second daemon took none of the first's lines")
    }

    /// The first line written after each `ready` is read: the port unplugged and plugged back again and again under
    /// one by-id name, each time a new pty, one line at once, then unplugged.
    @Test func theFirstLineAfterEveryReadyIsAScan() throws {
        var terminal = try PseudoTerminal()
        let (station, link) = try ScannerStation.serial(linkedTo: terminal.slavePath)
        _ = try station.ready()
        for round in 1...20 {
            let code = "FIRST-LINE-\(round)"
            try terminal.write(Array((code + "\r").utf8))
            let first = try station.nextReadOrSourceChange()
            #expect(first["type"]?.string == "scan" && first["raw"]?.string == code,
                    "round \(round): \(first.encoded()); the daemon said: \(station.daemon.process.standardError.suffix(800))")
            guard first["type"]?.string == "scan" else { return }
            #expect(unlink(link) == 0)
            terminal.close()
            #expect(try station.source("removed") != nil)
            terminal = try PseudoTerminal()
            #expect(symlink(terminal.slavePath, link) == 0)
            #expect(try station.source("ready") != nil)
        }
    }
}
