import NFCReader
import ScanJournal
import StationWire
import Synchronization

/// The PC/SC readers as a source: the monitor's events in the protocol's terms.
public struct NFCSource: ScanSource {
    public let name = "nfc"
    let monitor: NFCMonitor

    /// nil: every reader; otherwise readers whose name contains `readerFilter`. `feedback`: `--feedback auto`.
    /// `clock`: the daemon's; its monotonic time dates each tag's presentation (`readAt`).
    public init(readerFilter: String?, feedback: Bool, clock: DaemonClock) {
        monitor = NFCMonitor(readerFilter: readerFilter, feedback: feedback, now: clock.monotonic)
    }

    public func show(_ verdict: VerdictEvent) {
        guard verdict.medium == .nfc, verdict.source.hasPrefix(Self.sourcePrefix) else { return }
        monitor.show(ReaderSignal(verdict), onReader: String(verdict.source.dropFirst(Self.sourcePrefix.count)))
    }

    private static let sourcePrefix = "nfc:"

    public func run(report: @escaping @Sendable (SourceReport) -> Void) async {
        // The readers said attached and not yet removed: each is removed when pcscd goes away.
        let present = Mutex<Set<String>>([])
        let filter = monitor.readerFilter
        await monitor.run { event in
            switch event {
            case .serviceUnavailable(let detail):
                for name in present.withLock({ names in defer { names.removeAll() }; return names.sorted() }) {
                    report(.state(SourceEvent(id: "nfc:\(name)", medium: .nfc, state: .removed, detail: "pcscd unreachable")))
                }
                report(.state(SourceEvent(id: "nfc", medium: .nfc, state: .error, detail: "pcscd unreachable: \(detail)")))
            case .noReaders:
                let detail = filter.map { "no PC/SC reader whose name contains \"\($0)\"" } ?? "no PC/SC reader"
                report(.state(SourceEvent(id: "nfc", medium: .nfc, state: .absent, detail: detail)))
            case .readerAttached(let name):
                present.withLock { _ = $0.insert(name) }
                report(.state(SourceEvent(id: "nfc:\(name)", medium: .nfc, state: .attached, detail: "PC/SC reader attached"),
                              replacing: "nfc"))
                report(.state(SourceEvent(id: "nfc:\(name)", medium: .nfc, state: .ready, detail: "waiting for a tag")))
            case .readerRemoved(let name):
                present.withLock { _ = $0.remove(name) }
                report(.state(SourceEvent(id: "nfc:\(name)", medium: .nfc, state: .removed, detail: "PC/SC reader removed")))
            case .tagRead(let read):
                report(.scan(ScanRead(raw: read.uri, source: "nfc:\(read.reader)", medium: .nfc, readAt: read.presentedAt)))
            case .tagFailed(let reader, let failure):
                report(.readError(ReadFailure(source: "nfc:\(reader)", medium: .nfc, reason: ReadErrorReason(failure),
                                              detail: failure.detail)))
            case .feedbackSkipped(_, let detail):
                report(.note(detail))
            }
        }
    }
}
