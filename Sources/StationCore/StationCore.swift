import DaemonConfiguration
import FoundationEssentials
import JSONCore
import Lifecycle
import POSIXSupport
import ProductVersion
import ScanJournal
import SealTrustKit
import StationWire
import Synchronization
import VerdictSocket

/// Joins the station's sources, the parser and the API client: one `scan` and one `verdict` per string read,
/// every event journaled before it is published.
///
/// A source's report is handled on the thread that read it: the scan is classified and journaled there, and its API
/// call gets a thread of its own, which journals and publishes the verdict. So from card-present to the socket write
/// a chip scan crosses two threads' hand-offs: the reader's monitor to its read thread, and that to the call's
/// thread. The `run` task takes what the socket server's thread must not wait for (a client's `verify`), and
/// waits, at stop, for the calls in flight.
public final class StationCore: GracefullyStoppable, VerdictServerDelegate {
    public let name = "station core"
    public static let clientIdentifier = "sealtrust-scand/\(ProductVersion.current)"
    /// API calls out at once; more scans wait for a slot, and never for one another's answers.
    static let callsInFlightLimit = 16

    /// What SIGHUP may change without a restart.
    struct LiveSettings: Sendable {
        var options: DaemonOptions
        var client: SealTrustClient
        var texts: ScreenTexts
        var messages: StationMessages
    }

    private enum Work: Sendable {
        /// A client's `verify`: the string exactly as given.
        case manual(raw: String, requestID: JSON?, client: ClientID)
        /// A scan taken or a call ended: once stopping, `run` checks whether all is done.
        case workEnded
        case stop
    }

    /// The scans being taken and the calls out and waiting, shared by the threads that take scans and the calls'.
    private struct Calls {
        /// Scans between the stop check and their call's admission: the stop waits for them too.
        var taking = 0
        var inFlight = 0
        var waiting: [Call] = []
        var stopping = false

        var areDone: Bool { taking == 0 && inFlight == 0 && waiting.isEmpty }
    }

    /// A scan whose verdict needs the API.
    private struct Call: Sendable {
        let scanned: ScannedCode
        let read: ScanRead
        let scanID: String
        let requestID: JSON?
        let requester: ClientID?
        let live: LiveSettings
    }

    private let inbox = ThreadBridge<Work>()
    private let calls = Mutex(Calls())
    private let callThreads = ParkedThreads(name: "api-call")
    private let log: EventLog
    private let logger: Logger
    private let tokens: TokenStore
    private let sources = SourceRegistry()
    private let counters = StationCounters()
    private let settings: Mutex<LiveSettings>
    /// The options the daemon started with: what needs a restart is compared with these, never with a reload's.
    private let started: DaemonOptions
    private let startedAt = ContinuousClock.now
    private let lastStatusLine = Mutex("")
    private let onStatusChange: @Sendable (String) -> Void
    /// The sources running into this core, which may show a verdict at the device that read it.
    private let runningSources = Mutex<[any ScanSource]>([])
    private let sourceErrorLogLimit: Mutex<SourceErrorLogLimit>
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `sourceErrorLogInterval` and `now`: a source's errors, and a handheld scanner's read errors, are logged at most
    /// once in that interval by that clock.
    public init(options: DaemonOptions, journal: Journal, publisher: any EventPublisher, logger: Logger, tokens: TokenStore,
                sourceErrorLogInterval: Duration = .seconds(60),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
                onStatusChange: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        sourceErrorLogLimit = Mutex(SourceErrorLogLimit(interval: sourceErrorLogInterval))
        self.now = now
        self.tokens = tokens
        self.onStatusChange = onStatusChange
        log = EventLog(journal: journal, publisher: publisher, logger: logger)
        started = options
        settings = Mutex(Self.liveSettings(for: options, caBundle: options.apiCAFile.map { path in
            let (bundle, problem) = CABundleFile.read(path)
            if let problem { logger.warning("\(problem): every API call fails until it is mended and the daemon reloaded") }
            return bundle
        }, tokens: tokens))
    }

    /// Made at start and on SIGHUP, with the CA bundle read then.
    private static func liveSettings(for options: DaemonOptions, caBundle: CABundle?, tokens: TokenStore) -> LiveSettings {
        let configuration = SealTrustConfiguration(
            baseURL: options.apiBase, timeout: options.apiTimeout, clientIdentifier: clientIdentifier,
            extraHosts: options.extraHosts, accessTokenProvider: { tokens.token() },
            proxy: options.apiProxy, caBundle: caBundle, keepAlive: options.apiKeepalive)
        return LiveSettings(
            options: options,
            client: SealTrustClient(configuration: configuration),
            texts: options.language == .fr ? .french : .english,
            messages: .forLanguage(options.language))
    }

    private var live: LiveSettings { settings.withLock { $0 } }

    // MARK: Sources

    /// The service that runs `source` into this core.
    public func service(for source: any ScanSource) -> any Service {
        runningSources.withLock { $0.append(source) }
        return SourceService(source: source, core: self)
    }

    /// Handles a source's report on the caller's thread, which it blocks while the event is journaled (an fdatasync).
    public func receive(_ report: SourceReport) {
        switch report {
        case .state(let event, let replacing):
            sourceChanged(event, replacing: replacing)
        case .readError(let failure):
            readFailed(failure)
        case .note(let text):
            logger.debug(text)
        case .scan(let read):
            take(read, requestID: nil, requester: nil)
        }
    }

    // MARK: The loop

    /// Takes clients' `verify` commands until stopped, then waits for the calls in flight to finish.
    public func run() async {
        for await work in inbox.elements {
            switch work {
            case .manual(let raw, let requestID, let client):
                take(ScanRead(raw: raw, source: "manual", medium: .manual, readAt: .now), requestID: requestID, requester: client)
            case .workEnded:
                break
            case .stop:
                calls.withLock { $0.stopping = true }
            }
            if calls.withLock({ $0.stopping && $0.areDone }) { break }
        }
    }

    /// Asks `run` to take no more scans and to return once every scan taken has its verdict.
    public func stopGracefully() {
        inbox.send(.stop)
    }

    // MARK: Scans

    /// Journals the `scan` (in arrival order), then answers it: at once when no call is needed, else by a call,
    /// queued while `callsInFlightLimit` calls are out. A scan the journal refused gets no call: a chip URL is
    /// spent only for a scan the station recorded. The scan is journaled only with room kept for its verdict, so a
    /// call that was made always has its verdict journaled and published, however full the disk then is.
    private func take(_ read: ScanRead, requestID: JSON?, requester: ClientID?) {
        let admitted = calls.withLock { calls in
            guard !calls.stopping else { return false }
            calls.taking += 1
            return true
        }
        guard admitted else {
            logger.info("scan from \(read.source) ignored: the daemon is stopping")
            return
        }
        defer {
            let stopping = calls.withLock { calls in
                calls.taking -= 1
                return calls.stopping
            }
            if stopping { inbox.send(.workEnded) }
        }
        let live = live
        let scanned = ScannedCode(raw: read.raw, extraHosts: live.options.extraHosts)
        let scanID = ScanIdentifier.random()
        counters.countScan(by: read.medium)
        sources.scanned(by: read.source, at: Timestamp.now().text)
        logger.info("scan \(scanID) from \(read.source): \(scanned.kind.rawValue)")
        let scan = StationEvent.scan(scanned.event(scanID: scanID, source: read.source, medium: read.medium, raw: read.raw,
                                                   requestID: requestID))
        defer { publishStatusLine() }
        let verdictRoom = Journal.Room.reserve(bytes: Self.verdictRoomBytes(requestID: requestID))
        guard scanned.needsCall else {
            guard log.record(scan, requester: requester, room: verdictRoom) else {
                refuseUnrecordedScan(requestID: requestID, requester: requester)
                return
            }
            let verdict = scanned.kind == .foreign
                ? Verdict(foreignWith: live.texts)
                : Verdict(chip: ScanOutcome.from(SealTrustError.invalidScanAddress), texts: live.texts, messages: live.messages)
            publish(conclude(verdict, scanID: scanID, read: read, requestID: requestID), requestID: requestID, requester: requester)
            return
        }
        // The call starts once the scan's line is written, beside its fdatasync: a scan the journal refused gets no
        // call, and a chip URL is spent only for a scan the station recorded.
        let call = Call(scanned: scanned, read: read, scanID: scanID, requestID: requestID, requester: requester, live: live)
        let recorded = log.record(scan, requester: requester, room: verdictRoom) {
            self.admit(call)
        }
        if !recorded { refuseUnrecordedScan(requestID: requestID, requester: requester) }
    }

    private func refuseUnrecordedScan(requestID: JSON?, requester: ClientID?) {
        guard let requester else { return }
        log.refuseUnrecorded("the scan was not journaled, so it was not verified", requestID: requestID, requester: requester)
    }

    /// Starts `call` now, or queues it while `callsInFlightLimit` calls are out.
    private func admit(_ call: Call) {
        let startsNow = calls.withLock { calls in
            guard calls.inFlight < Self.callsInFlightLimit else {
                calls.waiting.append(call)
                return false
            }
            calls.inFlight += 1
            return true
        }
        if startsNow { start(call) }
    }

    /// Makes the call on a thread of its own, which then journals and publishes the verdict and goes on with the calls
    /// that waited for a slot.
    private func start(_ call: Call) {
        callThreads.run { [self] in
            var next: Call? = call
            var stopping = false
            while let call = next {
                answer(call)
                (next, stopping) = calls.withLock { calls in
                    guard !calls.waiting.isEmpty else {
                        calls.inFlight -= 1
                        return (nil, calls.stopping)
                    }
                    return (calls.waiting.removeFirst(), calls.stopping)
                }
            }
            // Only a stop waits for the calls: waking the core's task after every verdict would compete with the
            // subscribers' threads for the processor just when they read the verdict.
            if stopping { inbox.send(.workEnded) }
        }
    }

    /// Publishes the verdict of `call` from this thread, as soon as the API answered.
    private func answer(_ call: Call) {
        verdict(for: call) { verdict in
            publish(conclude(verdict, scanID: call.scanID, read: call.read, requestID: call.requestID),
                    requestID: call.requestID, requester: call.requester)
            publishStatusLine()
        }
    }

    /// Journals and publishes the verdict, then hands it to the sources: a reader's LED and buzzer show it right after.
    /// A verdict the journal refused reaches no one (the log has it from `conclude`); its requester gets an error.
    private func publish(_ verdict: VerdictEvent, requestID: JSON?, requester: ClientID?) {
        let room = Journal.Room.use(bytes: Self.verdictRoomBytes(requestID: requestID))
        guard log.record(.verdict(verdict), requester: requester, room: room) else {
            if let requester {
                log.refuseUnrecorded("the verdict was not journaled", requestID: requestID, requester: requester)
            }
            return
        }
        for source in runningSources.withLock({ $0 }) { source.show(verdict) }
    }

    /// The journal room a scan keeps for its verdict: the request's id, which the verdict repeats, and 64 KiB for the
    /// rest (the API's fields in it are names and identifiers, a few hundred bytes).
    static func verdictRoomBytes(requestID: JSON?) -> Int {
        var encoded: [UInt8] = []
        requestID?.encoded(into: &encoded)
        return 65_536 + encoded.count
    }

    /// One call, and a chip URL exactly once: never resent on our own. Blocks the calling thread on the network;
    /// `then` gets the verdict on it, before the client opens its next connection.
    private func verdict(for call: Call, then conclude: (Verdict) -> Void) {
        let live = call.live
        switch call.scanned {
        case .chip(let proof):
            let position = live.options.coordinates
            live.client.verifyScan(proof, latitude: position?.latitude, longitude: position?.longitude) { outcome in
                switch outcome {
                case .success(let verification):
                    conclude(Verdict(chip: ScanOutcome.from(verification), texts: live.texts, messages: live.messages))
                case .failure(let error):
                    conclude(Verdict(chip: ScanOutcome.from(error), texts: live.texts, messages: live.messages))
                }
            }
        case .printedSerial(let printed):
            live.client.passport(identifier: printed.serial, tier: live.options.tier) { outcome in
                switch outcome {
                case .success(let passport): conclude(Verdict(passport: passport, ofModel: false, texts: live.texts))
                case .failure(let error): conclude(Verdict(passportError: error, texts: live.texts, messages: live.messages))
                }
            }
        case .productReference(let gtin):
            live.client.referencePassport(gtin: gtin) { outcome in
                switch outcome {
                case .success(let passport): conclude(Verdict(passport: passport, ofModel: true, texts: live.texts))
                case .failure(let error): conclude(Verdict(passportError: error, texts: live.texts, messages: live.messages))
                }
            }
        case .chipWithoutProof, .foreign:
            preconditionFailure("answered without a call")
        }
    }

    /// Counts and logs the verdict and returns its event.
    private func conclude(_ verdict: Verdict, scanID: String, read: ScanRead, requestID: JSON?) -> VerdictEvent {
        let latencyMilliseconds = (ContinuousClock.now - read.readAt).wholeMilliseconds
        counters.count(verdict)
        if verdict.isAPIError {
            logger.warning("verdict \(scanID): \(verdict.logSummary) in \(latencyMilliseconds) ms")
        } else {
            logger.info("verdict \(scanID): \(verdict.logSummary) in \(latencyMilliseconds) ms")
        }
        return verdict.event(scanID: scanID, source: read.source, medium: read.medium, requestID: requestID,
                             latencyMilliseconds: latencyMilliseconds)
    }

    // MARK: Source states and read errors

    private func sourceChanged(_ event: SourceEvent, replacing placeholder: String?) {
        if let placeholder { sources.forget(id: placeholder) }
        guard sources.update(event) else { return }
        if event.state == .error {
            logLimited(key: event.id, "source \(event.id) error: \(event.detail)", heldBackAre: "errors")
        } else {
            logger.notice("source \(event.id) \(event.state.rawValue): \(event.detail)")
        }
        log.record(.source(event))
        publishStatusLine()
    }

    /// A handheld scanner's read errors are logged as a source's errors are, at most once an interval: serial noise
    /// gives one a line. A tag's come one per tap, and are all logged.
    private func readFailed(_ failure: ReadFailure) {
        let line = "read error on \(failure.source): \(failure.reason.rawValue): \(failure.detail)"
        if failure.medium == .hid || failure.medium == .serial {
            logLimited(key: "read errors of \(failure.source)", line, heldBackAre: "read errors")
        } else {
            logger.warning(line)
        }
        counters.countReadError(failure.reason)
        let message = live.messages.readError(reason: failure.reason)
        log.record(.readError(ReadErrorEvent(source: failure.source, medium: failure.medium, reason: failure.reason,
                                             detail: failure.detail, message: message)))
    }

    /// Logs `line` unless a line of `key` was logged within the interval, then with the count of those held back.
    private func logLimited(key: String, _ line: String, heldBackAre what: String) {
        guard let heldBack = sourceErrorLogLimit.withLock({ $0.admit(source: key, at: now()) }) else { return }
        logger.warning(heldBack == 0 ? line : "\(line) (and \(heldBack) more \(what) since the last one logged)")
    }

    // MARK: VerdictServerDelegate

    public func helloFields() -> [(String, JSON)] {
        [
            ("version", .string(ProductVersion.current)), ("station", .string(live.options.station)),
            ("sources", sources.json), ("last_seq", .int(Int64(log.lastSeq))),
        ]
    }

    public func statusFields() -> [(String, JSON)] {
        let uptime = ContinuousClock.now - startedAt
        var fields: [(String, JSON)] = [
            ("version", .string(ProductVersion.current)), ("station", .string(live.options.station)),
            ("uptime_s", .int(uptime.components.seconds)), ("sources", sources.statusJSON), ("counters", counters.json),
        ]
        if let lastAPIError = counters.lastAPIErrorJSON { fields.append(("last_api_error", lastAPIError)) }
        fields.append(("token", .string(tokens.presence.rawValue)))
        if let refusal = log.refusal {
            fields.append(("journal_error", .object([("since", .string(refusal.since)), ("detail", .string(refusal.detail))])))
        }
        fields.append(("last_seq", .int(Int64(log.lastSeq))))
        return fields
    }

    /// A manual scan: the string exactly as the client gave it.
    public func verify(raw: String, requestID: JSON?, from client: ClientID) {
        inbox.send(.manual(raw: raw, requestID: requestID, client: client))
    }

    // MARK: Configuration

    /// Applies what can change live and names what differs from the running value but needs a restart (that keeps its
    /// running value). A CA bundle that cannot be used refuses the whole reload: the running configuration stays.
    public func reconfigure(_ options: DaemonOptions) throws(ConfigurationError) -> [String] {
        var caBundle: CABundle?
        if let path = options.apiCAFile {
            let (bundle, problem) = CABundleFile.read(path)
            if let problem { throw ConfigurationError(message: problem) }
            caBundle = bundle
        }
        var applied = options
        var needsRestart: [String] = []
        func restartOnly<Value: Equatable>(_ key: ConfigurationKey, _ value: WritableKeyPath<DaemonOptions, Value>) {
            guard applied[keyPath: value] != started[keyPath: value] else { return }
            needsRestart.append(key.rawValue)
            applied[keyPath: value] = started[keyPath: value]
        }
        restartOnly(.socket, \.socketPath)
        restartOnly(.journal, \.journalPath)
        restartOnly(.nfc, \.nfc)
        restartOnly(.camera, \.camera)
        restartOnly(.feedback, \.feedback)
        restartOnly(.rescanAfter, \.rescanAfter)
        restartOnly(.scanner, \.scanners)
        restartOnly(.scannerKeymap, \.scannerKeymap)
        restartOnly(.maxClients, \.maxClients)
        restartOnly(.clientQueue, \.clientQueueBytes)
        restartOnly(.journalMaxBytes, \.journalMaxBytes)
        restartOnly(.journalMaxAge, \.journalMaxAgeDays)
        // The bridges give every event the name the daemon's hello gave them: a new name reaches them with a restart.
        restartOnly(.station, \.station)
        let fresh = Self.liveSettings(for: applied, caBundle: caBundle, tokens: tokens)
        settings.withLock { $0 = fresh }
        publishStatusLine()
        return needsRestart
    }

    /// The systemd `STATUS=` text: readers, camera, handheld scanners (when any), scans so far, last API error; one line,
    /// its control characters escaped.
    public var statusLine: String {
        let all = sources.all
        let readers = all.filter { $0.medium == .nfc && $0.id != "nfc" && $0.state == .ready }.count
        let camera = all.first { $0.medium == .qr }.map { "\($0.id) \($0.state.rawValue)" } ?? "no camera"
        var line = "\(readers) reader\(readers == 1 ? "" : "s") ready, \(camera), "
        let scanners = all.filter { $0.medium == .hid || $0.medium == .serial }
        if !scanners.isEmpty {
            let ready = scanners.filter { $0.state == .ready }.count
            line += "\(ready) of \(scanners.count) scanner\(scanners.count == 1 ? "" : "s") ready, "
        }
        line += "\(counters.scans) scan\(counters.scans == 1 ? "" : "s")"
        if let lastError = counters.lastAPIError { line += ", last API error: \(lastError)" }
        if log.refusal != nil { line += ", CANNOT RECORD: the journal refuses writes" }
        // The API's detail and a device's name come from outside: a line end in them would start another assignment
        // of the notify message (`READY=1`, `MAINPID=`), and `systemctl status` shows the line on a terminal.
        return TerminalText.escaped(line)
    }

    private func publishStatusLine() {
        let line = statusLine
        let changed = lastStatusLine.withLock { last in
            defer { last = line }
            return last != line
        }
        if changed { onStatusChange(line) }
    }
}

/// A source run as a service, reporting into the core.
struct SourceService: Service {
    let source: any ScanSource
    let core: StationCore

    var name: String { "\(source.name) source" }

    func run() async {
        await source.run(report: core.receive)
    }
}
