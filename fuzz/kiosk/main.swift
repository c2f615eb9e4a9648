import JSONCore
@testable import KioskBridge
import StationWire
import Synchronization

/// The kiosk bridge's own handling of what comes from outside (libmicrohttpd parses HTTP itself):
/// - a `Last-Event-ID` is a seq only when it is the decimal digits of one, and then it is that seq;
/// - an SSE frame of a daemon's event is one event, `id`, `event` and `data`, whatever the line holds (a CR or
///   LF in it would start a field or an event: a browser would read a forged event);
/// - `/metrics` built from any daemon messages is Prometheus text: each line a comment or `name{labels} value`,
///   no control character, every label value closed and escaped;
/// - a `scan_id` goes on to the daemon only when it is 1 to 128 unreserved characters;
/// - any daemon line given to the product desk, as the answer to its question, renders `/passport` and
///   `/certificate.svg` as a document of a known status (an SVG only from a string `pdf_url`);
/// - every route answers, none traps.
/// The input is read as text for the first two, and as daemon messages (JSON, and fields built from its bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: input, as: UTF8.self)

    let digits = !input.isEmpty && input.allSatisfy { (0x30...0x39).contains($0) }
    if let seq = KioskRoutes.seq(text) {
        check(digits && UInt64(text) == seq, "Last-Event-ID \(text) read as \(seq)")
    } else {
        check(!digits || input.count > 20 || UInt64(text) == nil, "Last-Event-ID \(text) refused")
    }

    let halves = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let type = String(decoding: halves[0], as: UTF8.self)
    let line = halves.count > 1 ? String(decoding: halves[1], as: UTF8.self) : ""
    checkFrame(EventFrame.journaled(seq: UInt64(size), type: type, line: line), seq: UInt64(size), line: line)

    let station = StationState(version: "0.1.0")
    station.setReachable(size % 2 == 0)
    if let message = try? JSON.parse(utf8: input) {
        station.greeted(sources: message["sources"])
        station.record(status: message)
        station.record(event: message)
    }
    let source = JSON.object([("id", .string(type)), ("medium", .string(line)), ("state", "ready")])
    station.record(status: .object([("type", "status"), ("sources", [source]), ("counters", .object([("verdicts", .object([(line, .int(3))]))]))]))
    station.record(event: .object([("type", "scan"), ("medium", .string(text))]))
    station.record(event: .object([("type", "read_error"), ("reason", .string(type))]))
    station.record(event: .object([("type", "verdict"), ("latency_ms", .int(Int64(size) * 997 - 3_000))]))
    checkMetrics(station.metrics())
    _ = station.health()

    let hub = EventHub()
    let hosts = AllowedHosts(listen: ListenAddress("127.0.0.1:8080")!, extra: [])
    let scanIDBytes = Array(text.utf8)
    let unreserved = scanIDBytes.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
    }
    check(KioskRoutes.isScanID(text) == ((1...128).contains(scanIDBytes.count) && unreserved), "scan_id \(text.debugDescription)")

    let desk = PassportDesk()
    var asked: [ClientCommand] = []
    let sent = Mutex<[ClientCommand]>([])
    desk.connected { command in sent.withLock { $0.append(command) }; return true }
    let routes = KioskRoutes(pages: KioskPages(holdSeconds: 8), hosts: hosts, hub: hub, station: station, desk: desk, resume: { _ in })
    for path in ["/", "/events", "/metrics", "/healthz", "/passport", "/certificate.svg", text] {
        let request = HTTPRequest(method: type.isEmpty ? "GET" : type, path: path, host: text, requestLineBytes: size, headerBytes: size, hasBody: size % 3 == 0,
                                  lastEventID: line, scanID: size % 5 == 0 ? nil : text, lane: size % 7 == 0 ? nil : text)
        if case .eventStream(let stream) = routes.answer(request) { stream.end() }
    }
    asked = sent.withLock { $0 }
    if let message = try? JSON.parse(utf8: input), case .object(var members) = message {
        members.removeAll { $0.0 == "id" }
        let id = asked.first?.id ?? .int(1)
        desk.received(.object(members + [("id", id)]))
    }
    let reply = (try? JSON.parse(utf8: input)).map { PassportDesk.Reply.passport($0) } ?? .none
    for render in [ProductDocuments.passport, ProductDocuments.certificateCode] {
        let document = render(.success(reply))
        check([200, 404].contains(document.status), "a product document's status \(document.status)")
        if document.contentType == "image/svg+xml" {
            check(reply.pdfURL != nil && String(decoding: document.body, as: UTF8.self).hasPrefix("<svg"), "an SVG without a pdf_url")
        }
    }
    return 0
}

extension PassportDesk.Reply {
    var pdfURL: String? {
        guard case .passport(let answer) = self else { return nil }
        return answer["certificate"]?["pdf_url"]?.stringValue
    }
}

/// One SSE event: `id: SEQ`, `event: NAME`, `data: LINE` (its line breaks made spaces), then a blank line.
func checkFrame(_ frame: [UInt8], seq: UInt64, line: String) {
    check(!frame.contains(0x0D), "a CR in an SSE frame")
    let lines = frame.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    check(lines.count == 5 && lines[3].isEmpty && lines[4].isEmpty, "not one SSE event: \(lines)")
    check(lines[0] == "id: \(seq)", "the id of an SSE frame: \(lines[0])")
    let name = lines[1].dropFirst("event: ".count)
    check(lines[1].hasPrefix("event: ") && !name.isEmpty && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
              || lines[1] == "event: message", "an SSE event name: \(lines[1])")
    let expected = String(decoding: line.utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
    check(lines[2] == "data: " + expected, "the data of an SSE frame changed")
}

/// Prometheus text format 0.0.4, line by line.
func checkMetrics(_ text: String) {
    check(text.hasSuffix("\n"), "metrics end without a newline")
    for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
        check(!line.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character in metrics: \(line)")
        if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") { continue }
        var scalars = line.unicodeScalars[...]
        let name = scalars.prefix { ("a"..."z").contains($0) || $0 == "_" }
        check(!name.isEmpty, "a sample without a name: \(line)")
        scalars = scalars.dropFirst(name.count)
        if scalars.first == "{" {
            scalars = scalars.dropFirst()
            while scalars.first != "}" {
                let label = scalars.prefix { ("a"..."z").contains($0) || $0 == "_" }
                scalars = scalars.dropFirst(label.count)
                check(!label.isEmpty && scalars.first == "=" && scalars.dropFirst().first == "\"", "a bad label in: \(line)")
                scalars = scalars.dropFirst(2)
                while let next = scalars.first, next != "\"" {
                    scalars = scalars.dropFirst(next == "\\" ? 2 : 1)
                }
                check(scalars.first == "\"", "a label value left open in: \(line)")
                scalars = scalars.dropFirst()
                if scalars.first == "," { scalars = scalars.dropFirst() }
                check(scalars.first != nil, "a label set left open in: \(line)")
            }
            scalars = scalars.dropFirst()
        }
        check(scalars.first == " ", "no space before the value in: \(line)")
        let value = String(Substring(scalars.dropFirst()))
        check(value == "+Inf" || Double(value) != nil, "a sample's value is no number in: \(line)")
    }
}
