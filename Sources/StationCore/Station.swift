import DaemonConfiguration
import JSONCore
import Logging
import ProductVersion
import ScanJournal
import SealTrustKit
import StationWire
import VerdictSocket

/// The station's rules as a value: each input gives the effects to carry out, in their order, and nothing else.
///
/// Classification, call admission, the verdict for each answer, the counters, `status` and the reload diff live here.
/// `StationCore` carries the effects out on the threads that brought the inputs; a test feeds inputs and reads the
/// effects, with no thread, journal, network or clock of its own.
struct Station: Sendable {
    /// API calls out at once; more scans wait for a slot, and never for one another's answers.
    static let callsInFlightLimit = 16

    /// A scan from its arrival until its verdict is recorded or refused.
    private struct OpenScan {
        let call: StationCall
        /// Set once it is the verdict's turn to be journaled.
        var verdict: VerdictEvent?
    }

    private(set) var settings: StationSettings
    /// The options the daemon started with: what needs a restart is compared with these, never with a reload's.
    private let started: DaemonOptions
    private let startedAt: ContinuousClock.Instant
    private var sources = SourceRegistry()
    private(set) var counters = StationCounters()
    /// Each lane's counts, for `status`.
    private var laneCounters: [String: StationCounters] = [:]
    private var sourceErrorLogLimit: SourceErrorLogLimit
    private var journalRefuses = false
    private var lastStatusLine = ""
    private var open: [String: OpenScan] = [:]
    private var products = ProductMemory()
    private var callsInFlight = 0
    /// Calls waiting for a slot, oldest first.
    private var waiting: [StationCall] = []
    private var stopping = false
    private var saidStopped = false

    /// `sourceErrorLogInterval`: a source's errors, and a handheld scanner's read errors, are logged at most once in it.
    init(options: DaemonOptions, startedAt: ContinuousClock.Instant, sourceErrorLogInterval: Duration) {
        settings = StationSettings(options: options)
        started = options
        self.startedAt = startedAt
        sourceErrorLogLimit = SourceErrorLogLimit(interval: sourceErrorLogInterval)
    }

    /// The effects of `input`, which came at `now` (`timestamp`: the same moment as RFC 3339 text, made only when a
    /// scan or an API error needs it).
    mutating func handle(_ input: StationInput, at now: ContinuousClock.Instant,
                         timestamp: @autoclosure () -> String) -> [StationEffect] {
        var effects: [StationEffect]
        switch input {
        case .scanned(let read, let scanID, let requestID, let requester):
            effects = take(read, scanID: scanID, requestID: requestID, requester: requester, timestamp: timestamp)
        case .scanWritten(let scanID):
            // Under the journal's lock: admission only, no status line.
            return admit(scanID: scanID)
        case .recorded(let record, let recorded, let refuses):
            journalRefuses = refuses
            effects = conclude(record, recorded: recorded, at: now, timestamp: timestamp)
        case .answered(let scanID, let answer):
            effects = answerCall(scanID: scanID, answer, at: now, timestamp: timestamp)
        case .sourceChanged(let event, let placeholder):
            effects = sourceChanged(event, replacing: placeholder, at: now)
        case .readFailed(let failure):
            effects = readFailed(failure, at: now)
        case .note(let text):
            return [.log(.debug, text)]
        case .reload(let options):
            effects = reload(options)
        case .stop:
            stopping = true
            effects = []
        }
        if let line = changedStatusLine() { effects.append(.statusLine(line)) }
        if stopping, open.isEmpty, !saidStopped {
            saidStopped = true
            effects.append(.stopped)
        }
        return effects
    }

    // MARK: Scans

    /// Classifies the string and journals its `scan`, keeping room for its verdict. Its verdict follows once the
    /// journal recorded the scan: at once when no call is needed, else by a call that starts as the line is written.
    /// A scan the journal refused gets no call: a chip URL is spent only for a scan the station recorded.
    private mutating func take(_ read: ScanRead, scanID: String, requestID: JSON?, requester: ClientID?,
                               timestamp: () -> String) -> [StationEffect] {
        guard !stopping else { return [.log(.info, "scan from \(read.source) ignored: the daemon is stopping")] }
        let code = ScannedCode(raw: read.raw, extraHosts: settings.options.extraHosts)
        let lane = settings.laneBySource[read.source]
        counters.countScan(by: read.medium)
        if let lane { laneCounters[lane, default: StationCounters()].countScan(by: read.medium) }
        sources.scanned(by: read.source, at: timestamp())
        open[scanID] = OpenScan(call: StationCall(scanID: scanID, code: code, read: read, requestID: requestID,
                                                  requester: requester, settings: settings))
        var scan = code.event(scanID: scanID, source: read.source, medium: read.medium, raw: read.raw, requestID: requestID)
        scan.lane = lane
        return [
            .log(.info, "scan \(scanID) from \(read.source): \(code.kind.rawValue)"),
            .record(.scan(scan), requester: requester, room: .reserve(bytes: Self.verdictRoomBytes(requestID: requestID)),
                    record: .scan(id: scanID), startsCall: code.needsCall),
        ]
    }

    /// Starts the scan's call now, or queues it while `callsInFlightLimit` calls are out.
    private mutating func admit(scanID: String) -> [StationEffect] {
        guard let call = open[scanID]?.call else { return [] }
        guard callsInFlight < Self.callsInFlightLimit else {
            waiting.append(call)
            return []
        }
        callsInFlight += 1
        return [.startCall(call)]
    }

    private mutating func conclude(_ record: StationRecord, recorded: Bool, at now: ContinuousClock.Instant,
                                   timestamp: () -> String) -> [StationEffect] {
        switch record {
        case .scan(let scanID):
            // A call's answer may be recorded before its scan's outcome comes back: the scan is then closed already.
            guard let scan = open[scanID], scan.verdict == nil else { return [] }
            guard recorded else {
                open[scanID] = nil
                return refusal("the scan was not journaled, so it was not verified", of: scan.call)
            }
            guard !scan.call.code.needsCall else { return [] }
            let latency = (now - scan.call.read.readAt).wholeMilliseconds
            guard scan.call.code.kind != .foreign else {
                return recordVerdict(VerdictEvent(foreignOf: scan.call, latencyMilliseconds: latency), apiError: nil,
                                     timestamp: timestamp)
            }
            let unreadable = ScanOutcome.from(SealTrustError.invalidScanAddress)
            return recordVerdict(VerdictEvent(chip: unreadable, of: scan.call, latencyMilliseconds: latency),
                                 apiError: unreadable.error, timestamp: timestamp)
        case .verdict(let scanID):
            guard let scan = open.removeValue(forKey: scanID), let verdict = scan.verdict else { return [] }
            var effects = recorded
                ? [StationEffect.show(verdict)]
                : refusal("the verdict was not journaled", of: scan.call)
            if scan.call.code.needsCall {
                if waiting.isEmpty {
                    callsInFlight -= 1
                } else {
                    effects.append(.startCall(waiting.removeFirst()))
                }
            }
            return effects
        case .source, .readError:
            return []
        }
    }

    private func refusal(_ what: String, of call: StationCall) -> [StationEffect] {
        guard let requester = call.requester else { return [] }
        return [.refuseUnrecorded(what, requestID: call.requestID, requester: requester)]
    }

    /// The verdict for the API's answer to the scan's call.
    private mutating func answerCall(scanID: String, _ answer: StationAnswer, at now: ContinuousClock.Instant,
                                     timestamp: () -> String) -> [StationEffect] {
        guard let call = open[scanID]?.call else { return [] }
        let latency = (now - call.read.readAt).wholeMilliseconds
        switch (call.code, answer) {
        case (.chip, .verification(let result)):
            let outcome = switch result {
            case .success(let verification): ScanOutcome.from(verification)
            case .failure(let error): ScanOutcome.from(error)
            }
            return recordVerdict(VerdictEvent(chip: outcome, of: call, latencyMilliseconds: latency), apiError: outcome.error,
                                 timestamp: timestamp)
        case (.printedSerial, .passport(.success(let passport))), (.productReference, .passport(.success(let passport))):
            let ofModel = call.code.kind == .productReference
            return recordVerdict(VerdictEvent(passport: passport, ofModel: ofModel, of: call, latencyMilliseconds: latency),
                                 apiError: nil, timestamp: timestamp)
        case (_, .passport(.failure(let error))):
            let failure = SealTrustError.from(error)
            return recordVerdict(VerdictEvent(passportError: failure, of: call, latencyMilliseconds: latency), apiError: failure,
                                 timestamp: timestamp)
        default:
            let outcome = ScanOutcome.from(SealTrustError.decoding("an answer of the wrong kind"))
            return recordVerdict(VerdictEvent(chip: outcome, of: call, latencyMilliseconds: latency), apiError: outcome.error,
                                 timestamp: timestamp)
        }
    }

    /// Counts and logs the verdict (`apiError`: the API's error behind it) and journals it into the room its scan kept.
    private mutating func recordVerdict(_ verdict: VerdictEvent, apiError: SealTrustError?, timestamp: () -> String) -> [StationEffect] {
        counters.count(verdict, apiError: apiError, at: timestamp)
        if let lane = verdict.lane { laneCounters[lane, default: StationCounters()].count(verdict, apiError: apiError, at: timestamp) }
        open[verdict.scanID]?.verdict = verdict
        if let product = ProductContext(verdict: verdict, code: open[verdict.scanID]?.call.code) {
            products.remember(product, ofScan: verdict.scanID)
        }
        let isAPIError = verdict.outcome == .failure && apiError != nil
        return [
            .log(isAPIError ? .warning : .info,
                 "verdict \(verdict.scanID): \(verdict.logSummary(error: apiError)) in \(verdict.latencyMilliseconds) ms"),
            .record(.verdict(verdict), requester: open[verdict.scanID]?.call.requester,
                    room: .use(bytes: Self.verdictRoomBytes(requestID: verdict.requestID)), record: .verdict(scanID: verdict.scanID),
                    startsCall: false),
        ]
    }

    /// The product of a scan's verdict, and what that verdict proves, while it is remembered.
    func product(ofScan scanID: String) -> ProductContext? {
        products.product(ofScan: scanID)
    }

    /// The journal room a scan keeps for its verdict: the request's id, which the verdict repeats, and 64 KiB for the
    /// rest (the API's fields in it are names and identifiers, a few hundred bytes).
    static func verdictRoomBytes(requestID: JSON?) -> Int {
        var encoded: [UInt8] = []
        requestID?.encoded(into: &encoded)
        return 65_536 + encoded.count
    }

    // MARK: Source states and read errors

    private mutating func sourceChanged(_ reported: SourceEvent, replacing placeholder: String?,
                                        at now: ContinuousClock.Instant) -> [StationEffect] {
        var event = reported
        event.lane = settings.laneBySource[event.id]
        if let placeholder { sources.forget(id: placeholder) }
        guard sources.update(event) else { return [] }
        var effects: [StationEffect] = []
        if event.state == .error {
            effects += logLimited(key: event.id, "source \(event.id) error: \(event.detail)", heldBackAre: "errors", at: now)
        } else {
            effects.append(.log(.notice, "source \(event.id) \(event.state.rawValue): \(event.detail)"))
        }
        effects.append(.record(.source(event), requester: nil, room: .none, record: .source, startsCall: false))
        return effects
    }

    /// A handheld scanner's read errors are logged as a source's errors are, at most once an interval: serial noise
    /// gives one a line. A tag's come one per tap, and are all logged.
    private mutating func readFailed(_ failure: ReadFailure, at now: ContinuousClock.Instant) -> [StationEffect] {
        let line = "read error on \(failure.source): \(failure.reason.rawValue): \(failure.detail)"
        var effects = failure.medium == .hid || failure.medium == .serial
            ? logLimited(key: "read errors of \(failure.source)", line, heldBackAre: "read errors", at: now)
            : [.log(.warning, line)]
        counters.countReadError(failure.reason)
        let lane = settings.laneBySource[failure.source]
        if let lane { laneCounters[lane, default: StationCounters()].countReadError(failure.reason) }
        let event = ReadErrorEvent(source: failure.source, medium: failure.medium, reason: failure.reason,
                                   detail: failure.detail, message: settings.messages.readError(reason: failure.reason), lane: lane)
        effects.append(.record(.readError(event), requester: nil, room: .none, record: .readError, startsCall: false))
        return effects
    }

    /// `line`, unless a line of `key` was logged within the interval; then with the count of those held back.
    private mutating func logLimited(key: String, _ line: String, heldBackAre what: String,
                                     at now: ContinuousClock.Instant) -> [StationEffect] {
        guard let heldBack = sourceErrorLogLimit.admit(source: key, at: now) else { return [] }
        return [.log(.warning, heldBack == 0 ? line : "\(line) (and \(heldBack) more \(what) since the last one logged)")]
    }

    // MARK: Configuration

    /// Applies what can change live and names what differs from the running value but needs a restart (that keeps its
    /// running value).
    private mutating func reload(_ options: DaemonOptions) -> [StationEffect] {
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
        restartOnly(.camera, \.cameras)
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
        // The bridges and `watch --lane` take a lane's name from `hello`, and a screen's lane must not move under it.
        restartOnly(.lane, \.lanes)
        settings = StationSettings(options: applied)
        return [.reloaded(applied, needsRestart: needsRestart)]
    }

    // MARK: What the station says of itself

    /// `hello`'s fields; `lastSeq` is the journal's.
    func helloFields(lastSeq: UInt64) -> [(String, JSON)] {
        [
            ("version", .string(ProductVersion.current)), ("station", .string(settings.options.station)),
            ("sources", sources.json), ("last_seq", .int(Int64(lastSeq))), ("lang", .string(settings.options.language.rawValue)),
            ("lanes", .array(settings.options.lanes.map { .string($0.name) })),
        ]
    }

    /// `status`'s fields at `now`; the token's presence and the journal's refusal and last seq come from their owners.
    func statusFields(at now: ContinuousClock.Instant, token: TokenStore.Presence, journalRefusal: EventLog.Refusal?,
                      lastSeq: UInt64) -> [(String, JSON)] {
        let uptime = now - startedAt
        var fields: [(String, JSON)] = [
            ("version", .string(ProductVersion.current)), ("station", .string(settings.options.station)),
            // As in `hello`: a reload may change it, and a bridge learns the new one here without reconnecting.
            ("lang", .string(settings.options.language.rawValue)), ("uptime_s", .int(uptime.components.seconds)), ("sources", sources.statusJSON), ("counters", counters.json),
        ]
        if let lastAPIError = counters.lastAPIErrorJSON { fields.append(("last_api_error", lastAPIError)) }
        fields.append(("lanes", .array(settings.options.lanes.map { lane in
            .object([("name", .string(lane.name)), ("sources", .array(lane.sources.map(JSON.string))),
                     ("counters", (laneCounters[lane.name] ?? StationCounters()).json)])
        })))
        fields.append(("token", .string(token.rawValue)))
        if let journalRefusal {
            fields.append(("journal_error", .object([("since", .string(journalRefusal.since)),
                                                     ("detail", .string(journalRefusal.detail))])))
        }
        fields.append(("last_seq", .int(Int64(lastSeq))))
        return fields
    }

    /// The systemd `STATUS=` text: readers, camera, handheld scanners (when any), scans so far, last API error; one line,
    /// its control characters escaped.
    var statusLine: String {
        let all = sources.all
        let readers = all.filter { $0.medium == .nfc && $0.id != "nfc" && $0.state == .ready }.count
        let cameras = all.filter { $0.medium == .qr }
        let camera = cameras.count > 1
            ? "\(cameras.filter { $0.state == .ready }.count) of \(cameras.count) cameras ready"
            : cameras.first.map { "\($0.id) \($0.state.rawValue)" } ?? "no camera"
        var line = "\(readers) reader\(readers == 1 ? "" : "s") ready, \(camera), "
        let scanners = all.filter { $0.medium == .hid || $0.medium == .serial }
        if !scanners.isEmpty {
            let ready = scanners.filter { $0.state == .ready }.count
            line += "\(ready) of \(scanners.count) scanner\(scanners.count == 1 ? "" : "s") ready, "
        }
        line += "\(counters.scans) scan\(counters.scans == 1 ? "" : "s")"
        if let lastError = counters.lastAPIError { line += ", last API error: \(lastError)" }
        if journalRefuses { line += ", CANNOT RECORD: the journal refuses writes" }
        // The API's detail and a device's name come from outside: a line end in them would start another assignment
        // of the notify message (`READY=1`, `MAINPID=`), and `systemctl status` shows the line on a terminal.
        return TerminalText.escaped(line)
    }

    private mutating func changedStatusLine() -> String? {
        let line = statusLine
        guard line != lastStatusLine else { return nil }
        lastStatusLine = line
        return line
    }
}
