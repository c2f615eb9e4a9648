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
/// Classification, call admission, the verdict for each answer, the counters, `status`, the reload diff, and the
/// `passport` commands' admission and answer cache live here. `StationRuntime` carries the effects out one after another
/// and feeds back their results; a test feeds inputs and reads the effects, with no thread, journal, network or clock
/// of its own.
struct Station: Sendable {
    /// API calls out at once; more scans wait for a slot, and never for one another's answers.
    static let callsInFlightLimit = 16

    /// `passport` commands read at once; more are answered busy, so that no client can spawn threads without bound.
    static let passportsInFlightLimit = 8

    /// A scan from its arrival until its verdict is recorded or refused.
    private struct OpenScan {
        let call: StationCall
        /// Its call holds one of the `callsInFlightLimit` slots (it starts once its line is written), given back once
        /// its verdict is recorded.
        var holdsSlot = false
        /// Set once it is the verdict's turn to be journaled.
        var verdict: VerdictEvent?
        /// Its verdict, once recorded, ends the mark of a proof being presented (`presentingDone`).
        var endsMark = false
        /// Its `scan`'s seq, once journaled.
        var scanSeq: UInt64?
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
    /// Calls of recorded scans waiting for a slot, oldest first.
    private var waiting: [StationCall] = []
    private var passportsInFlight = 0
    private var passportCache = PassportCache()
    private var stopping = false
    /// The chip scans waiting for the API under `on-api-outage = defer`, oldest first.
    private var deferrals = DeferredQueue()
    /// The API was found unreachable with nothing written, and no check has found it back yet: chip scans go no
    /// further than `deferred`.
    private var apiAway = false
    /// A `checkAPI` is out.
    private var checking = false
    /// The scan at the queue's head whose call is out.
    private var presenting: String?
    /// The oldest `scan` line retention must keep, as last said to the journal (nil: none).
    private var journalFloor: UInt64?
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
        case .recorded(let record, let recorded, let refuses, let seq):
            journalRefuses = refuses
            effects = conclude(record, recorded: recorded, seq: seq, at: now, timestamp: timestamp)
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
            // A tap waiting its turn behind the deferred scans is kept with them for the next start.
            effects = deferWaiting(at: now, timestamp: timestamp)
        case .apiChecked(let problem):
            effects = apiChecked(problem, at: now, timestamp: timestamp)
        case .recovered(let scans):
            effects = recover(scans, at: now, timestamp: timestamp)
        }
        effects += advance(at: now, timestamp: timestamp)
        let floor = oldestScanNeeded
        if floor != journalFloor {
            // Lowered before the deferred verdict is journaled (a start reads the journal from there); raised after.
            let lowers = floor.map { new in journalFloor.map { new < $0 } ?? true } ?? false
            journalFloor = floor
            if lowers { effects.insert(.keepJournal(from: floor), at: 0) } else { effects.append(.keepJournal(from: floor)) }
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
    /// journal recorded the scan: at once when no call is needed, else by a call that starts as the line is written
    /// (when a slot is free; else once the scan is recorded and a slot frees). A scan the journal refused gets no
    /// call: a chip URL is spent only for a scan the station recorded.
    private mutating func take(_ read: ScanRead, scanID: String, requestID: JSON?, requester: ClientID?,
                               timestamp: () -> String) -> [StationEffect] {
        guard !stopping else { return [.log(.info, "scan from \(read.source) ignored: the daemon is stopping")] }
        let code = ScannedCode(raw: read.raw, extraHosts: settings.options.extraHosts)
        let lane = settings.laneBySource[read.source]
        counters.countScan(by: read.medium)
        if let lane { laneCounters[lane, default: StationCounters()].countScan(by: read.medium) }
        sources.scanned(by: read.source, at: timestamp())
        let call = StationCall(scanID: scanID, code: code, read: read, requestID: requestID, requester: requester, settings: settings)
        open[scanID] = OpenScan(call: call)
        var startsCall = false
        if case .chip = code, apiAway || !deferrals.isEmpty {
            // Behind the deferred scans: it waits its turn, or is deferred once recorded while the API is away.
            deferrals.add(DeferredQueue.Entry(call: call, state: .waiting, readAt: read.readAt))
        } else {
            startsCall = code.needsCall && takeSlot(for: scanID)
        }
        var scan = code.event(scanID: scanID, source: read.source, medium: read.medium, raw: read.raw, requestID: requestID)
        scan.lane = lane
        return [
            .log(.info, "scan \(scanID) from \(read.source): \(code.kind.rawValue)"),
            .record(.scan(scan), requester: requester, room: .reserve(bytes: Self.verdictRoomBytes(requestID: requestID)),
                    record: .scan(id: scanID), thenCall: startsCall ? call : nil),
        ]
    }

    /// Takes one of the `callsInFlightLimit` slots for the scan's call, when one is free.
    private mutating func takeSlot(for scanID: String) -> Bool {
        guard callsInFlight < Self.callsInFlightLimit else { return false }
        callsInFlight += 1
        open[scanID]?.holdsSlot = true
        return true
    }

    private mutating func conclude(_ record: StationRecord, recorded: Bool, seq: UInt64?, at now: ContinuousClock.Instant,
                                   timestamp: () -> String) -> [StationEffect] {
        switch record {
        case .scan(let scanID):
            // A call's answer may be recorded before its scan's outcome comes back: the scan is then closed already.
            guard let scan = open[scanID], scan.verdict == nil else { return [] }
            guard recorded else {
                open[scanID] = nil
                deferrals.remove(scanID)
                // Its call did not start: the journal refused the line before it.
                return refusal("the scan was not journaled, so it was not verified", of: scan.call)
                    + (scan.holdsSlot ? giveBackSlot(at: now, timestamp: timestamp) : [])
            }
            open[scanID]?.scanSeq = seq
            deferrals.update(scanID) { $0.scanSeq = seq }
            if apiAway, deferrals.entry(scanID)?.state == .waiting {
                return recordDeferred(scan.call, reason: nil, at: now, timestamp: timestamp)
            }
            guard !scan.call.code.needsCall else {
                // A tap behind the deferred scans waits its turn (`advance`); any other call takes a slot or waits for one.
                guard !scan.holdsSlot, !deferrals.contains(scanID) else { return [] }
                guard takeSlot(for: scanID) else {
                    waiting.append(scan.call)
                    return []
                }
                return [.startCall(scan.call)]
            }
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
            // A late verdict is news for the journal and the screens, not for the reader: the item in hand is another.
            var effects = recorded
                ? (verdict.deferredSeq == nil ? [StationEffect.show(verdict)] : [])
                : refusal("the verdict was not journaled", of: scan.call)
            if verdict.outcome == .deferred {
                if recorded, let seq {
                    deferrals.update(scanID) { $0.state = .deferred(seq: seq) }
                } else {
                    deferrals.remove(scanID)
                    effects.append(.log(.error, "scan \(scanID) is not kept for later: its deferred verdict was not journaled"))
                }
            }
            if recorded, scan.endsMark { effects.append(.presentingDone) }
            if presenting == scanID { presenting = nil }
            if scan.holdsSlot { effects += giveBackSlot(at: now, timestamp: timestamp) }
            return effects
        case .source, .readError:
            return []
        }
    }

    /// The next call waiting for a slot takes the one given back; a chip scan among them goes behind the deferred
    /// ones, as a new tap would.
    private mutating func giveBackSlot(at now: ContinuousClock.Instant, timestamp: () -> String) -> [StationEffect] {
        var effects: [StationEffect] = []
        while !waiting.isEmpty {
            let next = waiting.removeFirst()
            if case .chip = next.code, apiAway || !deferrals.isEmpty {
                deferrals.add(DeferredQueue.Entry(call: next, state: .waiting, readAt: next.read.readAt,
                                                  scanSeq: open[next.scanID]?.scanSeq))
                if apiAway, open[next.scanID]?.scanSeq != nil {
                    effects += recordDeferred(next, reason: nil, at: now, timestamp: timestamp)
                }
                continue
            }
            open[next.scanID]?.holdsSlot = true
            return effects + [.startCall(next)]
        }
        callsInFlight -= 1
        return effects
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
            if case .failure(let error) = result, let effects = deferAgain(scanID, SealTrustError.from(error), at: now, timestamp: timestamp) {
                return effects
            }
            let outcome = switch result {
            case .success(let verification): ScanOutcome.from(verification)
            case .failure(let error): ScanOutcome.from(error)
            }
            var verdict = VerdictEvent(chip: outcome, of: call, latencyMilliseconds: latency)
            if case .deferred(let seq)? = deferrals.remove(scanID)?.state { verdict.deferredSeq = seq }
            return recordVerdict(verdict, apiError: outcome.error, timestamp: timestamp)
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
        let isAPIError = (verdict.outcome == .failure || verdict.outcome == .deferred) && apiError != nil
        let late = verdict.deferredSeq.map { " (late, for the deferred verdict \($0))" } ?? ""
        // The scan kept room for its first verdict only: a late one is a line of its own.
        let room: Journal.Room = verdict.deferredSeq == nil ? .use(bytes: Self.verdictRoomBytes(requestID: verdict.requestID)) : .none
        return [
            .log(isAPIError ? .warning : .info,
                 "verdict \(verdict.scanID): \(verdict.logSummary(error: apiError)) in \(verdict.latencyMilliseconds) ms\(late)"),
            .record(.verdict(verdict), requester: open[verdict.scanID]?.call.requester, room: room,
                    record: .verdict(scanID: verdict.scanID), thenCall: nil),
        ]
    }

    // MARK: Deferred verification (on-api-outage = defer)

    /// How often the API is checked while it is away, and how long a check may take: its return is noticed within 5 s.
    static let checkInterval: Duration = .seconds(2)
    static let checkTimeout: Duration = .seconds(3)

    private var maxDeferredAge: Duration { .milliseconds(Int64((settings.options.deferMaxAgeHours * 3_600_000).rounded())) }

    /// A chip call that failed with its request never written, under `defer` (or while scans are deferred, whatever a
    /// reload said since: they keep their order): the scan is deferred, or stays deferred, and the API is away. Nil
    /// when the failure is the scan's verdict. A deferred scan refused by the client's own limit (nothing sent)
    /// waits out the limit the same way.
    private mutating func deferAgain(_ scanID: String, _ failure: SealTrustError, at now: ContinuousClock.Instant,
                                     timestamp: () -> String) -> [StationEffect]? {
        guard settings.options.onAPIOutage == .defer || !deferrals.isEmpty, let scan = open[scanID] else { return nil }
        let entry = deferrals.entry(scanID)
        let retryAfter: Duration?
        switch (failure, entry?.state) {
        case (.tooManyCalls(let seconds), .deferred?): retryAfter = .seconds(seconds)
        case _ where failure.requestNeverWritten: retryAfter = nil
        default: return nil
        }
        var effects: [StationEffect] = []
        if case .deferred? = entry?.state {
            // Still deferred: no new verdict; the mark of its presentation ends, and its slot goes back.
            open[scanID] = nil
            presenting = nil
            effects.append(.log(.notice, "scan \(scanID) stays deferred: \(failure)"))
            effects.append(.presentingDone)
            if scan.holdsSlot { effects += giveBackSlot(at: now, timestamp: timestamp) }
        } else {
            effects += recordDeferred(scan.call, reason: failure, at: now, timestamp: timestamp)
        }
        if let retryAfter {
            effects.append(.log(.notice, "the client's limit for verifications is reached: the deferred scans wait \(retryAfter)"))
        } else if !apiAway {
            effects.append(.log(.warning, "the API cannot be reached (\(failure)): chip scans are deferred until it answers again"))
        }
        apiAway = true
        effects += deferWaiting(at: now, timestamp: timestamp)
        effects += startChecking(after: retryAfter ?? Self.checkInterval)
        return effects
    }

    /// The oldest `scan` line a deferred scan needs until its late verdict is journaled: retention keeps it.
    private var oldestScanNeeded: UInt64? {
        let late = open.values.filter { $0.verdict?.deferredSeq != nil }.compactMap(\.scanSeq)
        return (late + [deferrals.oldestScanSeq].compactMap { $0 }).min()
    }

    /// Journals `call`'s `deferred` verdict; the scan joins the queue, or keeps its place there.
    private mutating func recordDeferred(_ call: StationCall, reason: SealTrustError?, at now: ContinuousClock.Instant,
                                         timestamp: () -> String) -> [StationEffect] {
        if deferrals.contains(call.scanID) {
            deferrals.update(call.scanID) {
                $0.state = .deferring
                $0.reason = $0.reason ?? reason
            }
        } else {
            deferrals.add(DeferredQueue.Entry(call: call, state: .deferring, readAt: call.read.readAt, reason: reason,
                                              scanSeq: open[call.scanID]?.scanSeq))
        }
        let latency = (now - call.read.readAt).wholeMilliseconds
        return recordVerdict(VerdictEvent(deferred: call, reason: reason, latencyMilliseconds: latency), apiError: reason,
                             timestamp: timestamp)
    }

    /// The taps waiting their turn get `deferred` (the API went away again, or the daemon stops); not the one whose
    /// call is out.
    private mutating func deferWaiting(at now: ContinuousClock.Instant, timestamp: () -> String) -> [StationEffect] {
        var effects: [StationEffect] = []
        for entry in deferrals.waiting where entry.call.scanID != presenting && open[entry.call.scanID]?.verdict == nil {
            effects += recordDeferred(entry.call, reason: nil, at: now, timestamp: timestamp)
        }
        return effects
    }

    private mutating func startChecking(after delay: Duration) -> [StationEffect] {
        guard !checking else { return [] }
        checking = true
        return [.checkAPI(after: delay, timeout: Self.checkTimeout)]
    }

    /// A check's answer: nil, the API can be reached; the deferred scans are then verified (`advance`).
    private mutating func apiChecked(_ problem: SealTrustError?, at now: ContinuousClock.Instant,
                                     timestamp: () -> String) -> [StationEffect] {
        checking = false
        var effects = expireDeferred(at: now, timestamp: timestamp)
        guard apiAway else { return effects }
        if let problem, !deferrals.isEmpty, !stopping {
            effects.append(.log(.debug, "the API still cannot be reached: \(problem)"))
            return effects + startChecking(after: Self.checkInterval)
        }
        apiAway = false
        if problem == nil {
            effects.append(.log(.notice, "the API can be reached again: \(deferrals.deferredCount) deferred scan\(deferrals.deferredCount == 1 ? "" : "s") to verify, oldest first"))
        }
        return effects
    }

    /// Deferred scans older than `defer-max-age` end as a late `failure` that says so; never the one being presented.
    private mutating func expireDeferred(at now: ContinuousClock.Instant, timestamp: () -> String) -> [StationEffect] {
        var effects: [StationEffect] = []
        let maxAge = maxDeferredAge
        // Oldest first: the walk ends at the first scan young enough (the one out is passed over).
        for entry in deferrals.prefix(while: { $0.call.scanID == presenting || now - $0.readAt > maxAge })
        where entry.call.scanID != presenting {
            guard case .deferred(let seq) = entry.state else { continue }
            deferrals.remove(entry.call.scanID)
            let hours = settings.options.deferMaxAgeHours
            let detail = "deferred for more than \(hours == hours.rounded() ? String(Int(hours)) : String(hours)) h (defer-max-age) "
                + "without reaching the API; its proof was never presented" + (entry.reason.map { " (first: \($0))" } ?? "")
            effects += endLate(entry, deferredSeq: seq, detail: detail, cause: entry.reason?.cause ?? .connect, endsMark: false,
                               at: now, timestamp: timestamp)
        }
        return effects
    }

    /// A late `failure` for a deferred scan that will not reach the API.
    private mutating func endLate(_ entry: DeferredQueue.Entry, deferredSeq: UInt64, detail: String, cause: TransportFailure.Cause,
                                  endsMark: Bool, at now: ContinuousClock.Instant, timestamp: () -> String) -> [StationEffect] {
        let failure = SealTrustError.transport(TransportFailure(cause, detail))
        var verdict = VerdictEvent(chip: ScanOutcome.from(failure), of: entry.call,
                                   latencyMilliseconds: (now - entry.readAt).wholeMilliseconds)
        verdict.deferredSeq = deferredSeq
        open[entry.call.scanID] = OpenScan(call: entry.call, endsMark: endsMark, scanSeq: entry.scanSeq)
        return recordVerdict(verdict, apiError: failure, timestamp: timestamp)
    }

    /// With the API present, the queue's head goes to it, one scan at a time, once no other call is out: a deferred
    /// scan after the mark that says its proof is being presented, a tap that waited its turn as an ordinary call.
    private mutating func advance(at now: ContinuousClock.Instant, timestamp: () -> String) -> [StationEffect] {
        guard !apiAway, presenting == nil, !deferrals.isEmpty else { return [] }
        var effects = expireDeferred(at: now, timestamp: timestamp)
        // A chip call still out (from before the outage) may yet be deferred, ahead of the head: it goes first.
        let chipCallOut = open.values.contains { scan in
            guard case .chip = scan.call.code else { return false }
            return scan.holdsSlot
        }
        guard !stopping, !chipCallOut, callsInFlight < Self.callsInFlightLimit, let head = deferrals.head else { return effects }
        let scanID = head.call.scanID
        switch head.state {
        case .deferring:
            return effects
        case .waiting:
            // A chip URL is spent only for a scan the station recorded: until then the head waits.
            guard open[scanID]?.scanSeq != nil else { return effects }
            open[scanID]?.holdsSlot = true
            effects.append(.startCall(head.call))
        case .deferred(let seq):
            open[scanID] = OpenScan(call: head.call, holdsSlot: true, endsMark: true, scanSeq: head.scanSeq)
            effects.append(.log(.info, "scan \(scanID): its deferred proof goes to the API (deferred verdict \(seq))"))
            effects.append(.present(head.call, deferredSeq: seq))
        }
        presenting = scanID
        callsInFlight += 1
        return effects
    }

    /// Counts the scans the journal holds as deferred before the first client can ask `status`; `recover` then does
    /// what they need.
    mutating func preload(_ scans: [RecoveredDeferral]) {
        for scan in scans where !scan.interrupted && !scan.proofLost {
            let kept = entry(recovering: scan)
            if case .chip = kept.call.code { deferrals.add(kept) }
        }
        if !deferrals.isEmpty { apiAway = true }
    }

    private func entry(recovering scan: RecoveredDeferral) -> DeferredQueue.Entry {
        let code = ScannedCode(raw: scan.read.raw, extraHosts: settings.options.extraHosts)
        let call = StationCall(scanID: scan.scanID, code: code, read: scan.read, requestID: scan.requestID, requester: nil,
                               settings: settings)
        return DeferredQueue.Entry(call: call, state: .deferred(seq: scan.deferredSeq), readAt: scan.read.readAt, scanSeq: scan.scanSeq)
    }

    /// The scans the journal holds as deferred at start, oldest first (`interrupted`: its proof was being presented
    /// when the daemon stopped, and is never sent again). The API is checked at once.
    private mutating func recover(_ scans: [RecoveredDeferral], at now: ContinuousClock.Instant,
                                  timestamp: () -> String) -> [StationEffect] {
        var effects: [StationEffect] = []
        for scan in scans {
            let kept = entry(recovering: scan)
            if scan.proofLost {
                effects += endLate(kept, deferredSeq: scan.deferredSeq,
                                   detail: "its scan's line, which held its proof, is no longer in the journal; it was not presented",
                                   cause: .connect, endsMark: scan.interrupted, at: now, timestamp: timestamp)
            } else if scan.interrupted {
                effects += endLate(kept, deferredSeq: scan.deferredSeq,
                                   detail: "the daemon stopped while its proof was being presented; it is not sent again",
                                   cause: .reset, endsMark: true, at: now, timestamp: timestamp)
            } else if case .chip = kept.call.code {
                if !deferrals.contains(scan.scanID) { deferrals.add(kept) }
            } else {
                // The configuration changed since (a host no longer named): it is no chip link this station verifies.
                effects += endLate(kept, deferredSeq: scan.deferredSeq,
                                   detail: "not a chip link this station verifies under its configuration now; it was not presented",
                                   cause: .connect, endsMark: false, at: now, timestamp: timestamp)
            }
        }
        // Said at each start, even with nothing deferred: the last run's floor is the journal's until then.
        journalFloor = oldestScanNeeded
        effects.append(.keepJournal(from: journalFloor))
        guard !deferrals.isEmpty else { return effects }
        effects.append(.log(.notice, "\(deferrals.deferredCount) deferred scan\(deferrals.deferredCount == 1 ? "" : "s") kept from the last run"))
        apiAway = true
        return effects + startChecking(after: .zero)
    }

    // MARK: Passports

    /// A `passport` command's answer at once (a scan not remembered, an answer from the cache, busy), or the reads to
    /// make for it, on a thread of the runtime's, which hands what they gave to `passportRead`.
    mutating func askPassport(_ query: PassportQuery, requestID: JSON, at now: ContinuousClock.Instant) -> PassportStep {
        let product: ProductContext? = switch query.subject {
        case .scan(let scanID): products.product(ofScan: scanID)
        case .identifier(let identifier): ProductContext(query: .item(identifier: identifier))
        case .gtin(let gtin): ProductContext(query: .model(gtin: gtin))
        }
        guard let product else {
            let detail = "this scan_id is not among the last scans remembered, or its verdict names no product"
            return .answer(ServerAnswer.error(.notAvailable, detail, id: requestID))
        }
        let tier = query.tier ?? settings.options.tier
        let read = PassportRead(product: product, tier: tier, parts: query.parts, requestID: requestID, settings: settings)
        if let reads = passportCache.reads(for: read.key, at: now) { return .answer(read.answer(reads)) }
        guard passportsInFlight < Self.passportsInFlightLimit else {
            return .answer(ServerAnswer.passport(id: requestID, PassportAnswer.busy(retryAfterSeconds: 1, texts: settings.texts)))
        }
        passportsInFlight += 1
        return .read(read)
    }

    /// The answer to a `passport` command from what its reads gave; a whole one is kept in the cache.
    mutating func passportRead(_ read: PassportRead, gave reads: PassportReads, at now: ContinuousClock.Instant) -> JSON {
        passportsInFlight -= 1
        if reads.isComplete { passportCache.keep(reads, for: read.key, at: now) }
        return read.answer(reads)
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
        effects.append(.record(.source(event), requester: nil, room: .none, record: .source, thenCall: nil))
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
        effects.append(.record(.readError(event), requester: nil, room: .none, record: .readError, thenCall: nil))
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
        var deferred: [(String, JSON)] = [("count", .int(Int64(deferrals.deferredCount)))]
        if let oldest = deferrals.oldestDeferred { deferred.append(("oldest_age_s", .int((now - oldest.readAt).components.seconds))) }
        fields.append(("deferred", .object(deferred)))
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
        if !deferrals.isEmpty { line += ", \(deferrals.deferredCount) deferred" }
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
