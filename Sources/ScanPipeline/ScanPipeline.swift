import Foundation
import HandheldScanner
import ScannerDevices
import NFCReader
import QRScanner
import JSONCore
import ScanJournal
import POSIXSupport
import SealTrustKit
import StationWire
import VerdictSocket

/// Joins the station's sources, the parser and the API client: one `scan` and one `verdict` per string read,
/// every event journaled before it is published.
public final class ScanPipeline: VerdictServerDelegate {
    public static let version = "0.1.0"
    public static let clientIdentifier = "sealtrust-scand/\(version)"
    /// API calls out at once; more scans wait for a slot, and never for one another's answers.
    static let callsInFlightLimit = 16

    /// What SIGHUP may change without a restart.
    struct LiveSettings: Sendable {
        var options: DaemonOptions
        var client: SealTrustClient
        var texts: ScreenTexts
        var messages: StationMessages
        var tier: AccessTier
    }

    private let recorder: EventRecorder
    private let journal: Journal
    private let logger: Logger
    private let tokens: TokenStore
    private let sources = SourceRegistry()
    private let counters = StationCounters()
    private let tracker = ScanTracker(limit: callsInFlightLimit)
    private let settings: LockedValue<LiveSettings>
    private let sourceTasks = LockedValue<[Task<Void, Never>]>([])
    private let startedAt = ContinuousClock.now
    private let lastStatusLine = LockedValue("")
    private let onStatusChange: @Sendable (String) -> Void

    public init(options: DaemonOptions, journal: Journal, server: VerdictServer, logger: Logger, tokens: TokenStore,
                onStatusChange: @escaping @Sendable (String) -> Void) {
        self.journal = journal
        self.logger = logger
        self.tokens = tokens
        self.onStatusChange = onStatusChange
        recorder = EventRecorder(journal: journal, server: server, logger: logger)
        settings = LockedValue(Self.liveSettings(for: options, tokens: tokens))
    }

    private static func liveSettings(for options: DaemonOptions, tokens: TokenStore) -> LiveSettings {
        let configuration = SealTrustConfiguration(
            baseURL: options.apiBase, timeout: options.apiTimeout, clientIdentifier: clientIdentifier,
            extraHosts: options.extraHosts, accessTokenProvider: { tokens.token() })
        return LiveSettings(
            options: options,
            client: SealTrustClient(configuration: configuration),
            texts: options.language == .fr ? .french : .english,
            messages: .forLanguage(options.language),
            tier: options.tier)
    }

    // MARK: Sources

    /// Starts the NFC and QR sources the options name; a missing device is reported absent, not an error.
    public func startSources() {
        let options = settings.value.options
        var tasks: [Task<Void, Never>] = []
        switch options.nfc {
        case .none: break
        case .auto: tasks.append(Task { await self.follow(NFCMonitor(readerFilter: nil), filter: nil) })
        case .matching(let name): tasks.append(Task { await self.follow(NFCMonitor(readerFilter: name), filter: name) })
        }
        let rescanAfter = Duration.milliseconds(Int64((options.rescanAfter * 1000).rounded()))
        let spec: QRSourceSpec? = switch options.camera {
        case .none: nil
        case .auto: .camera(device: nil)
        case .device(let path): .camera(device: path)
        case .y4m(let path): .y4m(path: path)
        }
        if let spec {
            tasks.append(Task { await self.follow(QRScanner(source: spec, rescanAfter: rescanAfter)) })
        }
        for spec in options.scanners {
            let scanner = HandheldScannerSource(spec: spec, keymap: options.scannerKeymap, rescanAfter: rescanAfter)
            tasks.append(Task { await self.follow(scanner) })
        }
        sourceTasks.value = tasks
        publishStatusLine()
    }

    private func follow(_ scanner: HandheldScannerSource) async {
        let id = scanner.spec.id
        let medium: Medium = switch scanner.spec {
        case .evdev: .hid
        case .serial: .serial
        }
        for await event in scanner.events() {
            switch event {
            case .absent(let detail): await sourceChanged(id: id, medium: medium, state: .absent, detail: detail)
            case .ready(let detail): await sourceChanged(id: id, medium: medium, state: .ready, detail: detail)
            case .removed(let detail): await sourceChanged(id: id, medium: medium, state: .removed, detail: detail)
            case .error(let detail): await sourceChanged(id: id, medium: medium, state: .error, detail: detail)
            case .code(let code): await submit(raw: code, source: id, medium: medium, readAt: .now)
            case .failure(let failure):
                await readFailed(source: id, medium: medium, reason: ReadErrorReason(failure.reason), detail: failure.detail)
            }
        }
    }

    private func follow(_ monitor: NFCMonitor, filter: String?) async {
        for await event in monitor.events() {
            switch event {
            case .serviceUnavailable(let detail):
                for reader in sources.all where reader.medium == .nfc && reader.id != "nfc" && reader.state != .removed {
                    await sourceChanged(id: reader.id, medium: .nfc, state: .removed, detail: "pcscd unreachable")
                }
                await sourceChanged(id: "nfc", medium: .nfc, state: .error, detail: "pcscd unreachable: \(detail)")
            case .noReaders:
                let detail = filter.map { "no PC/SC reader whose name contains \"\($0)\"" } ?? "no PC/SC reader"
                await sourceChanged(id: "nfc", medium: .nfc, state: .absent, detail: detail)
            case .readerAttached(let name):
                sources.forget(id: "nfc")
                await sourceChanged(id: "nfc:\(name)", medium: .nfc, state: .attached, detail: "PC/SC reader attached")
                await sourceChanged(id: "nfc:\(name)", medium: .nfc, state: .ready, detail: "waiting for a tag")
            case .readerRemoved(let name):
                await sourceChanged(id: "nfc:\(name)", medium: .nfc, state: .removed, detail: "PC/SC reader removed")
            case .tagRead(let read):
                await submit(raw: read.uri, source: "nfc:\(read.reader)", medium: .nfc, readAt: read.presentedAt)
            case .tagFailed(let reader, let failure):
                await readFailed(source: "nfc:\(reader)", medium: .nfc, reason: ReadErrorReason(failure), detail: failure.detail)
            }
        }
    }

    private func follow(_ scanner: QRScanner) async {
        for await event in scanner.events() {
            switch event {
            case .sourceAbsent(let id):
                await sourceChanged(id: id, medium: .qr, state: .absent, detail: id == "camera" ? "no V4L2 capture device" : "no such file yet")
            case .sourceReady(let id, let detail):
                if id != "camera" { sources.forget(id: "camera") }
                await sourceChanged(id: id, medium: .qr, state: .ready, detail: detail)
            case .sourceRemoved(let id, let detail):
                await sourceChanged(id: id, medium: .qr, state: .removed, detail: detail)
            case .sourceError(let id, let detail):
                await sourceChanged(id: id, medium: .qr, state: .error, detail: detail)
            case .code(let source, let payload):
                await submit(raw: payload, source: source, medium: .qr, readAt: .now)
            case .unreadable(let source, let detail):
                await readFailed(source: source, medium: .qr, reason: .invalidUTF8, detail: detail)
            }
        }
    }

    private func sourceChanged(id: String, medium: Medium, state: SourceState, detail: String) async {
        let event = SourceEvent(id: id, medium: medium, state: state, detail: detail)
        guard sources.update(event) else { return }
        logger.notice("source \(id) \(state.rawValue): \(detail)")
        await recorder.record(.source(event))
        publishStatusLine()
    }

    private func readFailed(source: String, medium: Medium, reason: ReadErrorReason, detail: String) async {
        logger.warning("read error on \(source): \(reason.rawValue): \(detail)")
        let message = settings.value.messages.readError(reason: reason)
        await recorder.record(.readError(ReadErrorEvent(source: source, medium: medium, reason: reason, detail: detail, message: message)))
    }

    // MARK: Scans

    /// Journals and publishes the `scan` at once (in arrival order) and asks the API, without holding the caller.
    private func submit(raw: String, source: String, medium: Medium, readAt: ContinuousClock.Instant,
                        requester: ClientID? = nil, requestID: JSON? = nil, published: (@Sendable () -> Void)? = nil) {
        guard tracker.beginScan() else {
            logger.info("scan from \(source) ignored: the daemon is stopping")
            published?()
            return
        }
        let live = settings.value
        let scanned = ScannedCode(raw: raw, extraHosts: live.options.extraHosts)
        let scanID = UUID().uuidString.lowercased()
        let event = scanned.event(scanID: scanID, source: source, medium: medium, raw: raw, requestID: requestID)
        counters.countScan()
        logger.info("scan \(scanID) from \(source): \(scanned.kind.rawValue)")
        recorder.enqueue(.scan(event), requester: requester) { _ in published?() }
        // The call need not wait for the scan's fsync: the verdict is queued behind it on the journal's queue.
        Task {
            let verdict = await self.verdict(for: scanned, live: live)
            await self.conclude(verdict, scanID: scanID, source: source, medium: medium, readAt: readAt,
                                requester: requester, requestID: requestID)
            self.tracker.endScan()
        }
    }

    private func submit(raw: String, source: String, medium: Medium, readAt: ContinuousClock.Instant) async {
        await withCheckedContinuation { continuation in
            submit(raw: raw, source: source, medium: medium, readAt: readAt) { continuation.resume() }
        }
    }

    /// One call at most, and a chip URL exactly once: never resent on our own.
    private func verdict(for scanned: ScannedCode, live: LiveSettings) async -> Verdict {
        switch scanned {
        case .foreign:
            return Verdict(foreignWith: live.texts)
        case .chipWithoutProof:
            return Verdict(chip: ScanOutcome.from(SealTrustError.invalidScanAddress), texts: live.texts)
        case .chip(let proof):
            await tracker.acquireCallSlot()
            defer { tracker.releaseCallSlot() }
            let position = live.options.coordinates
            do {
                let verification = try await live.client.verifyScan(proof, latitude: position?.latitude, longitude: position?.longitude)
                return Verdict(chip: ScanOutcome.from(verification), texts: live.texts)
            } catch {
                return Verdict(chip: ScanOutcome.from(error), texts: live.texts)
            }
        case .printedSerial(let printed):
            await tracker.acquireCallSlot()
            defer { tracker.releaseCallSlot() }
            do {
                return Verdict(passport: try await live.client.passport(identifier: printed.serial, tier: live.tier),
                               ofModel: false, texts: live.texts)
            } catch {
                return Verdict(passportError: error, texts: live.texts, messages: live.messages)
            }
        case .productReference(let gtin):
            await tracker.acquireCallSlot()
            defer { tracker.releaseCallSlot() }
            do {
                return Verdict(passport: try await live.client.referencePassport(gtin: gtin), ofModel: true, texts: live.texts)
            } catch {
                return Verdict(passportError: error, texts: live.texts, messages: live.messages)
            }
        }
    }

    private func conclude(_ verdict: Verdict, scanID: String, source: String, medium: Medium, readAt: ContinuousClock.Instant,
                          requester: ClientID?, requestID: JSON?) async {
        let latencyMilliseconds = (ContinuousClock.now - readAt).wholeMilliseconds
        let event = verdict.event(scanID: scanID, source: source, medium: medium, requestID: requestID,
                                  latencyMilliseconds: latencyMilliseconds)
        counters.count(verdict)
        if verdict.isAPIError {
            logger.warning("verdict \(scanID): \(verdict.logSummary) in \(latencyMilliseconds) ms")
        } else {
            logger.info("verdict \(scanID): \(verdict.logSummary) in \(latencyMilliseconds) ms")
        }
        await recorder.record(.verdict(event), requester: requester)
        publishStatusLine()
    }

    // MARK: VerdictServerDelegate

    public func helloFields() -> [(String, JSON)] {
        [
            ("version", .string(Self.version)), ("station", .string(settings.value.options.station)),
            ("sources", sources.json), ("last_seq", .int(Int64(journal.lastSeq))),
        ]
    }

    public func statusFields() -> [(String, JSON)] {
        let uptime = ContinuousClock.now - startedAt
        return [
            ("version", .string(Self.version)), ("uptime_s", .int(uptime.components.seconds)), ("sources", sources.json),
            ("counters", counters.json), ("last_seq", .int(Int64(journal.lastSeq))),
        ]
    }

    /// A manual scan: the string exactly as the client gave it.
    public func verify(raw: String, requestID: JSON?, from client: ClientID) {
        submit(raw: raw, source: "manual", medium: .manual, readAt: .now, requester: client, requestID: requestID)
    }

    // MARK: Life cycle

    /// Applies what can change live and names what needs a restart.
    public func reconfigure(_ options: DaemonOptions) -> [String] {
        let previous = settings.value.options
        var needsRestart: [String] = []
        if options.socketPath != previous.socketPath { needsRestart.append("socket") }
        if options.journalPath != previous.journalPath { needsRestart.append("journal") }
        if options.nfc != previous.nfc { needsRestart.append("nfc") }
        if options.camera != previous.camera { needsRestart.append("camera") }
        if options.rescanAfter != previous.rescanAfter { needsRestart.append("rescan-after") }
        if options.scanners != previous.scanners { needsRestart.append("scanner") }
        if options.scannerKeymap != previous.scannerKeymap { needsRestart.append("scanner-keymap") }
        if options.maxClients != previous.maxClients { needsRestart.append("max-clients") }
        if options.clientQueueBytes != previous.clientQueueBytes { needsRestart.append("client-queue") }
        if options.journalMaxBytes != previous.journalMaxBytes { needsRestart.append("journal-max-bytes") }
        if options.journalMaxAgeDays != previous.journalMaxAgeDays { needsRestart.append("journal-max-age") }
        settings.value = Self.liveSettings(for: options, tokens: tokens)
        publishStatusLine()
        return needsRestart
    }

    /// Stops the sources and waits for the scans in progress, at most `timeout` (the API's own timeout bounds them).
    public func stop(timeout: Duration) async {
        sourceTasks.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
        let finished = LockedValue(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if finished.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            Task {
                await tracker.stopAndDrain()
                resumeOnce()
            }
            Task {
                try? await Task.sleep(for: timeout)
                resumeOnce()
            }
        }
        recorder.flush()
    }

    /// The systemd `STATUS=` text: readers, camera, scans so far, last API error.
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
        return line
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
