import DaemonConfiguration
import FoundationEssentials
import JSONCore
import Lifecycle
import Logging
import POSIXSupport
import ProductVersion
import ScanJournal
import SealTrustKit
import StationWire
import Synchronization
import VerdictSocket

/// Runs the station's rules (`Station`) on the threads that bring its inputs: one `scan` and one `verdict` per string
/// read, every event journaled before it is published.
///
/// A source's report is handled on the thread that read it: the scan is classified and journaled there, and its API
/// call gets a thread of its own, which journals and publishes the verdict. So from card-present to the socket write
/// a chip scan crosses two threads' hand-offs: the reader's monitor to its read thread, and that to the call's
/// thread. The `run` task takes what the socket server's thread must not wait for (a client's `verify`), and
/// waits, at stop, for the calls in flight.
///
/// Locks are taken in one order: the event log's, then the journal's, then the station's. The station's is held only
/// while `Station.handle` runs, never while an effect is carried out; the one input fed under the journal's lock
/// (`scanWritten`, so that a call starts beside its scan's fdatasync) only admits the call.
public final class StationCore: GracefullyStoppable, VerdictServerDelegate {
    public let name = "station core"
    public static let clientIdentifier = "sealtrust-scand/\(ProductVersion.current)"

    private enum Work: Sendable {
        /// A client's `verify`: the string exactly as given.
        case manual(raw: String, requestID: JSON?, client: ClientID)
        case stop
        /// Every scan taken has its verdict, after a stop.
        case stopped
    }

    private let station: Mutex<Station>
    private let inbox = ThreadBridge<Work>()
    private let callThreads = ParkedThreads(name: "api-call")
    /// A `passport` command's reads, apart from the scans' calls.
    private let readThreads = ParkedThreads(name: "api-read")
    private let passportCache = PassportCache()
    /// `passport` commands being read; more are refused, so that no client can spawn threads without bound.
    private let passportsInFlight = Mutex(0)
    static let passportsInFlightLimit = 8
    private let log: EventLog
    /// Where an answer to one client goes (`passport`); events go through `log`.
    private let publisher: any EventPublisher
    private let logger: Logger
    private let tokens: TokenStore
    /// The client the next call goes through; a reload makes a new one.
    private let api: Mutex<any StationAPI>
    private let makeAPI: @Sendable (SealTrustConfiguration) -> any StationAPI
    /// The sources running into this core, which may show a verdict at the device that read it.
    private let runningSources = Mutex<[any ScanSource]>([])
    private let now: @Sendable () -> ContinuousClock.Instant
    private let onStatusChange: @Sendable (String) -> Void
    private let presentingMark: PresentingMark
    /// The scans the journal held as deferred at start, fed to the station once `run` begins.
    private let recovered: [RecoveredDeferral]

    /// `sourceErrorLogInterval` and `now`: a source's errors, and a handheld scanner's read errors, are logged at most
    /// once in that interval by that clock, which also times each verdict's latency and the uptime. `makeAPI`: the
    /// client for a configuration (at start and on each reload).
    public init(options: DaemonOptions, journal: Journal, publisher: any EventPublisher, logger: Logger, tokens: TokenStore,
                sourceErrorLogInterval: Duration = .seconds(60),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
                makeAPI: @escaping @Sendable (SealTrustConfiguration) -> any StationAPI = { SealTrustClient(configuration: $0) },
                onStatusChange: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.now = now
        self.tokens = tokens
        self.makeAPI = makeAPI
        self.onStatusChange = onStatusChange
        self.publisher = publisher
        log = EventLog(journal: journal, publisher: publisher, logger: logger)
        station = Mutex(Station(options: options, startedAt: now(), sourceErrorLogInterval: sourceErrorLogInterval))
        let caBundle = options.apiCAFile.map { path in
            let (bundle, problem) = CABundleFile.read(path)
            if let problem { logger.warning("\(problem): every API call fails until it is mended and the daemon reloaded") }
            return bundle
        }
        api = Mutex(makeAPI(Self.configuration(for: options, caBundle: caBundle, tokens: tokens)))
        presentingMark = PresentingMark(journalDirectory: journal.directory)
        do {
            recovered = try RecoveredDeferral.read(journal, presenting: presentingMark.load(),
                                                   nowMilliseconds: EventTime.nowMilliseconds(), now: now())
        } catch {
            logger.error("the journal could not be read for the scans deferred in the last run: \(error)")
            recovered = []
        }
        station.withLock { [recovered] in $0.preload(recovered) }
    }

    /// The API client's configuration for `options`, with the CA bundle read at start or on SIGHUP.
    private static func configuration(for options: DaemonOptions, caBundle: CABundle?, tokens: TokenStore) -> SealTrustConfiguration {
        SealTrustConfiguration(
            baseURL: options.apiBase, timeout: options.apiTimeout, clientIdentifier: clientIdentifier,
            extraHosts: options.extraHosts, accessTokenProvider: { tokens.token() },
            proxy: options.apiProxy, caBundle: caBundle, keepAlive: options.apiKeepalive)
    }

    // MARK: Inputs and effects

    /// Feeds `input` to the station, then carries out its effects on this thread, in order.
    private func feed(_ input: StationInput) {
        perform(handle(input))
    }

    private func handle(_ input: StationInput) -> [StationEffect] {
        let instant = now()
        return station.withLock { $0.handle(input, at: instant, timestamp: Timestamp.now().text) }
    }

    private func perform(_ effects: [StationEffect]) {
        for effect in effects {
            switch effect {
            case .log(let severity, let line):
                logger.log(severity, line)
            case .record(let event, let requester, let room, let record, let startsCall):
                let whenWritten: (() -> Void)? = startsCall
                    ? { [self] in
                        guard case .scan(let scanID) = record else { return }
                        perform(handle(.scanWritten(scanID: scanID)))
                    }
                    : nil
                let seq = log.record(event, requester: requester, room: room, whenWritten: whenWritten)
                feed(.recorded(record, recorded: seq != nil, journalRefuses: log.refusal != nil, seq: seq))
            case .startCall(let call):
                callThreads.run { [self] in self.call(call) }
            case .show(let verdict):
                for source in runningSources.withLock({ $0 }) { source.show(verdict) }
            case .refuseUnrecorded(let what, let requestID, let requester):
                log.refuseUnrecorded(what, requestID: requestID, requester: requester)
            case .statusLine(let line):
                onStatusChange(line)
            case .reloaded:
                // `reconfigure` makes the new client before the effects run.
                break
            case .stopped:
                inbox.send(.stopped)
            case .checkAPI(let delay, let timeout):
                callThreads.run { [self] in
                    OSThread.pause(for: delay)
                    feed(.apiChecked(api.withLock { $0 }.reachable(within: timeout)))
                }
            case .present(let call, let deferredSeq):
                present(call, deferredSeq: deferredSeq)
            case .presentingDone:
                presentingMark.clear()
            case .keepJournal(let seq):
                log.keep(from: seq)
            }
        }
    }

    /// A deferred scan's call, once the mark says durably that its proof is being presented; without the mark, no call.
    private func present(_ call: StationCall, deferredSeq: UInt64) {
        do throws(Errno) {
            try presentingMark.save(deferredSeq)
        } catch {
            let failure = TransportFailure(.connect, "the mark of a proof being presented could not be written (\(presentingMark.path): \(error))",
                                           requestWritten: false)
            feed(.answered(scanID: call.scanID, .verification(.failure(SealTrustError.transport(failure)))))
            return
        }
        callThreads.run { [self] in self.call(call) }
    }

    /// One call, and a chip URL exactly once: never resent on our own. Blocks this thread on the network, and goes on
    /// here with the answer: the verdict is journaled and published before the client opens its next connection.
    private func call(_ call: StationCall) {
        let api = api.withLock { $0 }
        let options = call.settings.options
        let scanID = call.scanID
        switch call.code {
        case .chip(let proof):
            let position = options.coordinates
            api.verifyScan(proof, latitude: position?.latitude, longitude: position?.longitude) { outcome in
                feed(.answered(scanID: scanID, .verification(outcome)))
            }
        case .printedSerial(let printed):
            api.passport(identifier: printed.serial, tier: options.tier, for: .verdict) { outcome in
                feed(.answered(scanID: scanID, .passport(outcome)))
            }
            // A passport of up to 1 MiB was parsed and let go, after its verdict was published.
            Heap.giveBackFreeMemory()
        case .productReference(let gtin):
            api.referencePassport(gtin: gtin, for: .verdict) { outcome in
                feed(.answered(scanID: scanID, .passport(outcome)))
            }
            Heap.giveBackFreeMemory()
        case .chipWithoutProof, .foreign:
            preconditionFailure("answered without a call")
        }
    }

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
            feed(.sourceChanged(event, replacing: replacing))
        case .readError(let failure):
            feed(.readFailed(failure))
        case .note(let text):
            feed(.note(text))
        case .scan(let read):
            feed(.scanned(read, scanID: ScanIdentifier.random(), requestID: nil, requester: nil))
        }
    }

    // MARK: The loop

    /// Takes clients' `verify` commands until stopped, then waits for the calls in flight to finish.
    public func run() async {
        feed(.recovered(recovered))
        for await work in inbox.elements {
            switch work {
            case .manual(let raw, let requestID, let client):
                let read = ScanRead(raw: raw, source: "manual", medium: .manual, readAt: now())
                feed(.scanned(read, scanID: ScanIdentifier.random(), requestID: requestID, requester: client))
            case .stop:
                feed(.stop)
            case .stopped:
                return
            }
        }
    }

    /// Asks `run` to take no more scans and to return once every scan taken has its verdict.
    public func stopGracefully() {
        inbox.send(.stop)
    }

    // MARK: VerdictServerDelegate

    public func helloFields() -> [(String, JSON)] {
        let lastSeq = log.lastSeq
        return station.withLock { $0.helloFields(lastSeq: lastSeq) }
    }

    public func statusFields() -> [(String, JSON)] {
        let instant = now()
        let token = tokens.presence
        let refusal = log.refusal
        let lastSeq = log.lastSeq
        return station.withLock { $0.statusFields(at: instant, token: token, journalRefusal: refusal, lastSeq: lastSeq) }
    }

    /// A manual scan: the string exactly as the client gave it.
    public func verify(raw: String, requestID: JSON?, from client: ClientID) {
        inbox.send(.manual(raw: raw, requestID: requestID, client: client))
    }

    /// Reads what the product is on a thread of its own and answers `client` alone; nothing is journaled.
    public func passport(_ query: PassportQuery, requestID: JSON, from client: ClientID) -> JSON? {
        let (product, settings) = station.withLock { station in
            let product: ProductContext? = switch query.subject {
            case .scan(let scanID): station.product(ofScan: scanID)
            case .identifier(let identifier): ProductContext(query: .item(identifier: identifier))
            case .gtin(let gtin): ProductContext(query: .model(gtin: gtin))
            }
            return (product, station.settings)
        }
        guard let product else {
            let detail = "this scan_id is not among the last scans remembered, or its verdict names no product"
            return ServerAnswer.error(.notAvailable, detail, id: requestID)
        }
        let tier = query.tier ?? settings.options.tier
        let key = PassportCache.Key(product: product.subject, tier: tier, parts: query.parts)
        let publicBase = settings.options.publicAPIBase ?? settings.options.apiBase
        let answer = { @Sendable (reads: PassportReads) in
            ServerAnswer.passport(id: requestID, PassportAnswer.fields(of: product, requestedTier: tier, reads: reads,
                                                                      texts: settings.texts, publicBase: publicBase))
        }
        if let reads = passportCache.reads(for: key, at: now()) { return answer(reads) }
        let admitted = passportsInFlight.withLock { count in
            guard count < Self.passportsInFlightLimit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            return ServerAnswer.passport(id: requestID, PassportAnswer.busy(retryAfterSeconds: 1, texts: settings.texts))
        }
        let api = api.withLock { $0 }
        readThreads.run { [self] in
            let reads = PassportReads.read(product.subject, tier: tier, parts: query.parts, from: api).bounded()
            if reads.isComplete { passportCache.keep(reads, for: key, at: now()) }
            passportsInFlight.withLock { $0 -= 1 }
            // Four answers of up to 1 MiB each were parsed and let go: their memory goes back now, not at the next read.
            Heap.giveBackFreeMemory()
            publisher.answer(answer(reads), to: client)
        }
        return nil
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
        let effects = handle(.reload(options))
        var needsRestart: [String] = []
        for case .reloaded(let applied, let restartOnly) in effects {
            api.withLock { $0 = makeAPI(Self.configuration(for: applied, caBundle: caBundle, tokens: tokens)) }
            needsRestart = restartOnly
        }
        perform(effects)
        return needsRestart
    }

    /// The systemd `STATUS=` text.
    public var statusLine: String { station.withLock { $0.statusLine } }
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
