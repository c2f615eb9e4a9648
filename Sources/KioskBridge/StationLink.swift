import JSONCore
import Lifecycle
import Logging
import StationClient
import StationWire

/// The bridge's side of the daemon's socket: every journaled event to the hub, the daemon's `status` to the
/// metrics (asked by each scrape, and every 5 s for `/healthz` and the page's language), and reconnection by itself
/// (StationFeed resumes by `replay`, so a daemon restart loses nothing).
public struct StationLink: Service {
    let socketPath: String
    let hub: EventHub
    let station: StationState
    let desk: PassportDesk
    let log: Logger
    /// How long the page shows a verdict (`--hold`).
    let hold: Duration
    /// `--lang`; nil: the page follows the daemon's `lang`, from `hello` and from each `status` (a reload may change it).
    let fixedLanguage: KioskLanguage?
    /// `--lane`: said in the log when the daemon has no such lane.
    let lane: String?
    static let askStatus = ClientCommand(id: "kiosk-status", action: .status)
    static let statusInterval = Duration.seconds(5)

    public init(socketPath: String, hub: EventHub, station: StationState, desk: PassportDesk, log: Logger, hold: Duration,
                fixedLanguage: KioskLanguage?, lane: String? = nil) {
        self.lane = lane
        self.desk = desk
        self.socketPath = socketPath
        self.hold = hold
        self.fixedLanguage = fixedLanguage
        self.hub = hub
        self.station = station
        self.log = log
    }

    public var name: String { "station link" }

    /// Runs until cancelled.
    public func run() async {
        guard let newest = await newestSeq() else { return }
        let feed = StationFeed(socketPath: socketPath, since: newest)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Sources and the language change without a scrape (a reload says nothing else): ask now and then.
                while !Task.isCancelled {
                    try? feed.send(Self.askStatus)
                    try? await Task.sleep(for: Self.statusInterval)
                }
            }
            group.addTask {
                // StationFeed waits up to 60 s between attempts, right for a broker far away; a screen saying
                // "Station offline" a minute after the daemon is back is not. A cheap probe each second ends the wait.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard !station.isReachable, let probe = try? await StationConnection.connect(path: socketPath) else { continue }
                    probe.close()
                    feed.restart(since: hub.newestSeq)
                }
            }
            group.addTask { await follow(feed) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The journal's newest seq, from a first `hello`: the bridge starts live, not from the journal's beginning.
    private func newestSeq() async -> UInt64? {
        var backoff = ReconnectBackoff()
        while !Task.isCancelled {
            do {
                let connection = try await StationConnection.connect(path: socketPath)
                connection.close()
                return connection.hello.lastSeq
            } catch {
                offline(because: error)
                try? await Task.sleep(for: backoff.next())
            }
        }
        return nil
    }

    private func follow(_ feed: StationFeed) async {
        // The newest scan the screen moved to, and each lane's screen: a verdict for an older one never replaces it.
        var newestScanID: String?
        var newestScanOfLane: [String: String] = [:]
        for await update in feed {
            switch update {
            case .connected(let hello, _):
                log.info("connected to the daemon of station \(printable(hello.station)) at \(printable(socketPath))")
                station.greeted(sources: hello.message.json["sources"], lanes: hello.message.json["lanes"])
                if let lane, station.hasLane(lane) == false {
                    log.warning("the daemon has no lane \(lane): this bridge's pages show nothing until it has (its --lane)")
                }
                station.setReachable(true)
                hub.setOnline(true, language: language(in: hello.message.json))
                desk.connected { command in (try? feed.send(command)) != nil }
                station.connected { command in (try? feed.send(command)) != nil }
                try? feed.send(Self.askStatus)
            case .event(let event):
                guard let seq = event.seq else { continue }
                let page = PageEvent(seq: seq, type: event.type, line: event.line, json: event.json, hold: hold,
                                     nowMilliseconds: EventTime.nowMilliseconds())
                let screen = ScreenChange.of(page, newestScanID: &newestScanID)
                let laneScreen = page.lane.map { ScreenChange.of(page, newestScanID: &newestScanOfLane[$0]) } ?? .unchanged
                // The streams first: once /metrics or /state shows an event, a page that opens its stream then
                // gets nothing older (a test that waited for the metrics saw the event as live).
                hub.publish(seq: seq, frame: page.frame, lane: page.lane, screen: screen, laneScreen: laneScreen, shown: page.journaled)
                station.record(event: event.json)
                if event.type == .event(.verdict), let scanID = page.scanID {
                    // The page asks for the product as soon as it shows the verdict: the question is out already.
                    desk.verdict(event.json, ofScan: scanID, shown: screen != .unchanged || laneScreen != .unchanged)
                }
            case .answer(let answer):
                if answer.type == .status {
                    station.record(status: answer.json)
                    // `systemctl reload` with another `lang` says nothing else to a client: the next status tells it.
                    if station.isReachable, let language = language(in: answer.json) { hub.setOnline(true, language: language) }
                }
                desk.received(answer.json)
            case .lost(let range):
                log.warning("events \(range.lowerBound) to \(range.upperBound) were removed from the daemon's journal before they were read")
            case .journalBehind(_, let newest):
                log.warning("the daemon's journal ends at \(newest), before what the bridge had seen: its journal was replaced")
                hub.rebase(to: newest)
                feed.restart(since: newest)
            case .disconnected(let error, _):
                offline(because: error)
            case .caughtUp:
                break
            }
        }
    }

    /// The page's language for what the daemon says of itself (`hello`, `status`): `--lang`, else the daemon's.
    private func language(in message: JSON) -> KioskLanguage? {
        fixedLanguage ?? message["lang"]?.stringValue.flatMap(KioskLanguage.init(rawValue:))
    }

    private func offline(because error: any Error) {
        desk.disconnected()
        if station.setReachable(false) {
            log.warning("the daemon is unreachable: \(printable(String(describing: error)))")
        }
        hub.setOnline(false)
    }
}
