import JSONCore
import StationWire

/// The bridge's answers (outputs.md): the page, the event stream, metrics and health; limits first.
public struct KioskRoutes: Sendable {
    static let longestRequestLine = 8 * 1024
    static let longestHeaders = 8 * 1024

    /// The page in each language; the hub says which one is served now.
    let pages: KioskPages
    let hosts: AllowedHosts
    let hub: EventHub
    let station: StationState
    let desk: PassportDesk
    /// `--lane`: the one lane this bridge shows; nil: each page's `?lane=`, or every event.
    let lane: String?
    /// Starts the replay of a stream that resumes from a `Last-Event-ID`.
    let resume: @Sendable (EventStream) -> Void

    public init(pages: KioskPages, hosts: AllowedHosts, hub: EventHub, station: StationState, desk: PassportDesk,
                lane: String? = nil, resume: @escaping @Sendable (EventStream) -> Void) {
        self.lane = lane
        self.pages = pages
        self.hosts = hosts
        self.hub = hub
        self.station = station
        self.desk = desk
        self.resume = resume
    }

    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        if request.requestLineBytes > Self.longestRequestLine { return Self.plain(414, "request line too long\n") }
        if request.headerBytes > Self.longestHeaders { return Self.plain(431, "headers too large\n") }
        // A browser always sends one Host; two (or none in HTTP/1.1) are a client that a rebinding check must not guess for.
        guard request.hostFields <= 1 else { return Self.plain(400, "one Host field at most\n") }
        guard request.hostFields == 1 || request.version != "HTTP/1.1" else { return Self.plain(400, "HTTP/1.1 needs a Host field\n") }
        guard hosts.permits(request.host) else { return Self.plain(421, "this bridge does not serve that host name\n") }
        // HEAD is answered as GET; libmicrohttpd leaves the body out.
        guard request.method == "GET" || request.method == "HEAD" else { return Self.plain(405, "only GET and HEAD\n") }
        // A body would keep the connection reading it; no route takes one.
        guard !request.hasBody else { return Self.plain(400, "a GET takes no body\n") }
        // `?lane=` on the page and its stream: a name the daemon could give, and on a bridge with `--lane`, that one.
        var lane = lane
        if (request.path == "/" || request.path == "/events"), let asked = request.lane {
            guard LaneName.isValid(asked) else { return Self.plain(400, "lane: \(LaneName.rule)\n") }
            if let lane, asked != lane { return Self.plain(404, "this kiosk shows lane \(lane) only\n") }
            // A mistyped address would show an idle screen for ever; while the daemon has not said, the page is served.
            if station.hasLane(asked) == false { return Self.plain(404, "the station has no lane \(asked)\n") }
            lane = asked
        }
        switch request.path {
        case "/":
            return .document(status: 200, contentType: "text/html; charset=utf-8", body: pages.documents[hub.language] ?? [])
        case "/events" where request.method == "HEAD":
            return .document(status: 200, contentType: "text/event-stream; charset=utf-8", body: [])
        case "/events":
            let stream = hub.open(resumeAfter: request.lastEventID.flatMap(Self.seq), lane: lane)
            if stream.resumeAfter != nil { resume(stream) }
            return .eventStream(stream)
        case "/metrics":
            return station.scrape()
        case "/passport", "/certificate.svg":
            // Every answer of these routes is a JSON object, their errors too (sealtrust-kiosk(8)).
            guard let scanID = request.scanID, Self.isScanID(scanID) else {
                let refusal = ProductDocuments.json(400, .object([("error", "bad_scan_id"),
                                                                 ("detail", "scan_id: 1 to 128 letters, digits, '-', '.', '_' or '~'")]))
                return .document(status: refusal.status, contentType: refusal.contentType, body: refusal.body)
            }
            return desk.answer(scanID: scanID, render: request.path == "/passport" ? ProductDocuments.passport : ProductDocuments.certificateCode)
        case "/healthz":
            let (status, body) = station.health()
            return .document(status: status, contentType: "application/json", body: Array((body + "\n").utf8))
        default:
            return Self.plain(404, "not found\n")
        }
    }

    /// A `Last-Event-ID` that is a seq: decimal digits only, no more than a UInt64 holds.
    static func seq(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(text)
    }

    /// A daemon's scan id is a UUID; nothing else is passed on to it.
    static func isScanID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
        }
    }

    private static func plain(_ status: Int, _ text: String) -> HTTPAnswer {
        .document(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}
