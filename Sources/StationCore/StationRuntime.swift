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

/// Runs the station's rules (`Station`): feeds it each input, then carries out its effects one after another, in the
/// order given, from one queue, and feeds each effect's result back as an input, whose effects join the queue's end.
///
/// The queue is drained by one thread at a time, never reentered: the thread that brings an input drains it when no
/// other does (a source's read thread, a call's thread), so a scan is journaled with no hand-off; an input from the
/// server's thread, the pool or a signal's hook is drained on a thread of the runtime's (`station`), as none of these
/// may wait for the disk. So every journal write comes from the drainer, one at a time, in `seq` order, and a
/// scan's call starts between its line's write and its fdatasync, outside every lock.
///
/// One lock, the runtime's: held while `Station.handle` runs and while the queue is taken from, never while an effect
/// is carried out.
public final class StationRuntime: GracefullyStoppable, VerdictServerDelegate {
    public let name = "station core"
    public static let clientIdentifier = "sealtrust-scand/\(ProductVersion.current)"

    /// The station and what carrying out its effects needs, under the one lock.
    private struct Runtime {
        var station: Station
        /// Effects not carried out yet, in the order `handle` gave them.
        var queue = EffectQueue()
        /// A thread is draining `queue`: others only add to it.
        var draining = false
        /// The client the next call goes through; a reload makes a new one.
        var api: any StationAPI
        /// The sources running into this core, which may show a verdict at the device that read it.
        var sources: [any ScanSource] = []
    }

    /// Where an input's effects are carried out when no thread drains the queue.
    private enum Drainer {
        /// The caller's thread, one of ours that may wait for the disk.
        case caller
        /// A `station` thread: the caller must not wait (the server's thread, Swift's pool, a signal's hook).
        case ownThread
    }

    private let runtime: Mutex<Runtime>
    /// Says `run` may return: every scan taken has its verdict, after a stop.
    private let stopped = ThreadBridge<Void>()
    private let drainThreads = ParkedThreads(name: "station")
    private let callThreads = ParkedThreads(name: "api-call")
    /// A `passport` command's reads, apart from the scans' calls.
    private let readThreads = ParkedThreads(name: "api-read")
    private let log: EventLog
    /// Where an answer to one client goes (`passport`); events go through `log`.
    private let publisher: any EventPublisher
    private let logger: Logger
    private let tokens: TokenStore
    private let makeAPI: @Sendable (SealTrustConfiguration) -> any StationAPI
    private let clock: DaemonClock
    private let onStatusChange: @Sendable (String) -> Void
    private let presentingMark: PresentingMark
    /// The scans the journal held as deferred at start, fed to the station once `run` begins.
    private let recovered: [RecoveredDeferral]

    /// `sourceErrorLogInterval` and `clock`: a source's errors, and a handheld scanner's read errors, are logged at
    /// most once in that interval by the clock's monotonic time, which also times each verdict's latency, the uptime
    /// and the passport cache; its wall time dates what events and `status` show. `makeAPI`: the client for a
    /// configuration (at start and on each reload).
    public init(options: DaemonOptions, journal: Journal, publisher: any EventPublisher, logger: Logger, tokens: TokenStore,
                sourceErrorLogInterval: Duration = .seconds(60), clock: DaemonClock = .system,
                makeAPI: @escaping @Sendable (SealTrustConfiguration) -> any StationAPI = { SealTrustClient(configuration: $0) },
                onStatusChange: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.clock = clock
        self.tokens = tokens
        self.makeAPI = makeAPI
        self.onStatusChange = onStatusChange
        self.publisher = publisher
        log = EventLog(journal: journal, publisher: publisher, logger: logger, clock: clock)
        let caBundle = options.apiCAFile.map { path in
            let (bundle, problem) = CABundleFile.read(path)
            if let problem { logger.warning("\(problem): every API call fails until it is mended and the daemon reloaded") }
            return bundle
        }
        presentingMark = PresentingMark(journalDirectory: journal.directory)
        var station = Station(options: options, startedAt: clock.monotonic(), sourceErrorLogInterval: sourceErrorLogInterval)
        do {
            recovered = try RecoveredDeferral.read(journal, presenting: presentingMark.load(),
                                                   nowMilliseconds: Int64(clock.wall().seconds * 1000), now: clock.monotonic())
        } catch {
            logger.error("the journal could not be read for the scans deferred in the last run: \(error)")
            recovered = []
        }
        station.preload(recovered)
        runtime = Mutex(Runtime(station: station, api: makeAPI(Self.configuration(for: options, caBundle: caBundle, tokens: tokens))))
    }

    /// The API client's configuration for `options`, with the CA bundle read at start or on SIGHUP.
    private static func configuration(for options: DaemonOptions, caBundle: CABundle?, tokens: TokenStore) -> SealTrustConfiguration {
        SealTrustConfiguration(
            baseURL: options.apiBase, timeout: options.apiTimeout, clientIdentifier: clientIdentifier,
            extraHosts: options.extraHosts, rateLimitWindow: options.apiRateWindow, accessTokenProvider: { tokens.token() },
            proxy: options.apiProxy, caBundle: caBundle, keepAlive: options.apiKeepalive,
            // One ready connection for each lane, whose taps may come at once.
            readyConnections: max(1, options.lanes.count))
    }

    // MARK: Inputs and effects

    /// Feeds `input` to the station and queues its effects; drains the queue unless a thread already does.
    private func feed(_ input: StationInput, drainOn drainer: Drainer) {
        queue(drainOn: drainer) { _ = handle(input, in: &$0) }
    }

    /// Runs `change` (which queues effects) under the lock, then drains the queue unless a thread already does.
    private func queue<Value>(drainOn drainer: Drainer, _ change: (inout Runtime) -> Value) -> Value {
        let (value, drains) = runtime.withLock { runtime in
            let value = change(&runtime)
            guard !runtime.draining, !runtime.queue.isEmpty else { return (value, false) }
            runtime.draining = true
            return (value, true)
        }
        if drains {
            switch drainer {
            case .caller: drain()
            case .ownThread: drainThreads.run { [self] in drain() }
            }
        }
        return value
    }

    /// Queues the effects of `input`, and returns them.
    private func handle(_ input: StationInput, in runtime: inout Runtime) -> [StationEffect] {
        let effects = runtime.station.handle(input, at: clock.monotonic(), timestamp: clock.wall().text)
        runtime.queue.append(contentsOf: effects)
        return effects
    }

    /// Carries out the queued effects one at a time until none is left; each one's result is handled as it comes.
    private func drain() {
        while let effect = runtime.withLock({ runtime -> StationEffect? in
            guard let effect = runtime.queue.takeFirst() else {
                runtime.draining = false
                return nil
            }
            return effect
        }) {
            if let result = perform(effect) {
                runtime.withLock { _ = handle(result, in: &$0) }
            }
        }
    }

    /// Carries out one effect; returns what the station must hear of it.
    private func perform(_ effect: StationEffect) -> StationInput? {
        switch effect {
        case .log(let severity, let line):
            logger.log(severity, line)
        case .record(let event, let requester, let room, let record, let call):
            guard let written = log.write(event, room: room) else {
                return .recorded(record, recorded: false, journalRefuses: true)
            }
            if let call { callThreads.run { [self] in self.call(call) } }
            let recorded = log.commit(written, of: event, requester: requester, startedCall: call != nil)
            return .recorded(record, recorded: recorded, journalRefuses: log.refusal != nil,
                             seq: recorded ? written.event.seq : nil)
        case .startCall(let call):
            callThreads.run { [self] in self.call(call) }
        case .show(let verdict):
            for source in runtime.withLock({ $0.sources }) { source.show(verdict) }
        case .refuseUnrecorded(let what, let requestID, let requester):
            log.refuseUnrecorded(what, requestID: requestID, requester: requester)
        case .statusLine(let line):
            onStatusChange(line)
        case .reloaded:
            // `reconfigure` made the new client with the station's lock held.
            break
        case .stopped:
            stopped.send(())
        case .checkAPI(let delay, let timeout):
            callThreads.run { [self] in
                OSThread.pause(for: delay)
                let api = runtime.withLock { $0.api }
                feed(.apiChecked(api.reachable(within: timeout)), drainOn: .caller)
            }
        case .present(let call, let deferredSeq):
            return present(call, deferredSeq: deferredSeq)
        case .presentingDone:
            presentingMark.clear()
        case .keepJournal(let seq):
            log.keep(from: seq)
        }
        return nil
    }

    /// A deferred scan's call, once the mark says durably that its proof is being presented; without the mark, no call,
    /// and the station hears that the proof did not go.
    private func present(_ call: StationCall, deferredSeq: UInt64) -> StationInput? {
        do throws(Errno) {
            try presentingMark.save(deferredSeq)
        } catch {
            let failure = TransportFailure(.connect, "the mark of a proof being presented could not be written (\(presentingMark.path): \(error))",
                                           requestWritten: false)
            return .answered(scanID: call.scanID, .verification(.failure(SealTrustError.transport(failure))))
        }
        callThreads.run { [self] in self.call(call) }
        return nil
    }

    /// One call, and a chip URL exactly once: never resent on our own. Blocks this thread on the network, and goes on
    /// here with the answer: the verdict is journaled and published before the client opens its next connection.
    private func call(_ call: StationCall) {
        let api = runtime.withLock { $0.api }
        let options = call.settings.options
        let scanID = call.scanID
        switch call.code {
        case .chip(let proof):
            let position = options.coordinates
            api.verifyScan(proof, latitude: position?.latitude, longitude: position?.longitude) { outcome in
                feed(.answered(scanID: scanID, .verification(outcome)), drainOn: .caller)
            }
        case .printedSerial(let printed):
            api.passport(identifier: printed.serial, tier: options.tier, for: .verdict) { outcome in
                feed(.answered(scanID: scanID, .passport(outcome)), drainOn: .caller)
            }
            // A passport of up to 1 MiB was parsed and let go, after its verdict was published.
            Heap.giveBackFreeMemory()
        case .productReference(let gtin):
            api.referencePassport(gtin: gtin, for: .verdict) { outcome in
                feed(.answered(scanID: scanID, .passport(outcome)), drainOn: .caller)
            }
            Heap.giveBackFreeMemory()
        case .chipWithoutProof, .foreign:
            preconditionFailure("answered without a call")
        }
    }

    // MARK: Sources

    /// The service that runs `source` into this core.
    public func service(for source: any ScanSource) -> any Service {
        runtime.withLock { $0.sources.append(source) }
        return SourceService(source: source, core: self)
    }

    /// Handles a source's report on the caller's thread (a source's own), which carries out the effects when no other
    /// thread does: it may wait while an event is journaled (an fdatasync).
    public func receive(_ report: SourceReport) {
        switch report {
        case .state(let event, let replacing):
            feed(.sourceChanged(event, replacing: replacing), drainOn: .caller)
        case .readError(let failure):
            feed(.readFailed(failure), drainOn: .caller)
        case .note(let text):
            feed(.note(text), drainOn: .caller)
        case .scan(let read):
            feed(.scanned(read, scanID: ScanIdentifier.random(), requestID: nil, requester: nil), drainOn: .caller)
        }
    }

    // MARK: The service

    /// Returns once stopped and every scan taken has its verdict.
    public func run() async {
        feed(.recovered(recovered), drainOn: .ownThread)
        for await _ in stopped.elements { return }
    }

    /// Takes no more scans; `run` returns once every scan taken has its verdict.
    public func stopGracefully() {
        feed(.stop, drainOn: .ownThread)
    }

    // MARK: VerdictServerDelegate

    public func helloFields() -> [(String, JSON)] {
        let lastSeq = log.lastSeq
        return runtime.withLock { $0.station.helloFields(lastSeq: lastSeq) }
    }

    public func statusFields() -> [(String, JSON)] {
        let instant = clock.monotonic()
        let token = tokens.presence
        let refusal = log.refusal
        let lastSeq = log.lastSeq
        return runtime.withLock { $0.station.statusFields(at: instant, token: token, journalRefusal: refusal, lastSeq: lastSeq) }
    }

    /// A manual scan: the string exactly as the client gave it, read when the command came. Journaled on a `station`
    /// thread, never on the server's.
    public func verify(raw: String, requestID: JSON?, from client: ClientID) {
        let read = ScanRead(raw: raw, source: "manual", medium: .manual, readAt: clock.monotonic())
        feed(.scanned(read, scanID: ScanIdentifier.random(), requestID: requestID, requester: client), drainOn: .ownThread)
    }

    /// Answers from the station at once, or reads what the product is on a thread of its own and answers `client`
    /// alone; nothing is journaled.
    public func passport(_ query: PassportQuery, requestID: JSON, from client: ClientID) -> JSON? {
        let instant = clock.monotonic()
        let (step, api) = runtime.withLock { ($0.station.askPassport(query, requestID: requestID, at: instant), $0.api) }
        switch step {
        case .answer(let answer):
            return answer
        case .read(let read):
            readThreads.run { [self] in
                let reads = PassportReads.read(read.product.subject, tier: read.tier, parts: read.parts, from: api).bounded()
                let answer = runtime.withLock { $0.station.passportRead(read, gave: reads, at: clock.monotonic()) }
                // Four answers of up to 1 MiB each were parsed and let go: their memory goes back now, not at the next read.
                Heap.giveBackFreeMemory()
                publisher.answer(answer, to: client)
            }
            return nil
        }
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
        return queue(drainOn: .ownThread) { runtime in
            var needsRestart: [String] = []
            for case .reloaded(let applied, let restartOnly) in handle(.reload(options), in: &runtime) {
                runtime.api = makeAPI(Self.configuration(for: applied, caBundle: caBundle, tokens: tokens))
                needsRestart = restartOnly
            }
            return needsRestart
        }
    }

    /// The systemd `STATUS=` text.
    public var statusLine: String { runtime.withLock { $0.station.statusLine } }
}

/// A source run as a service, reporting into the core.
struct SourceService: Service {
    let source: any ScanSource
    let core: StationRuntime

    var name: String { "\(source.name) source" }

    func run() async {
        await source.run(report: core.receive)
    }
}
