import POSIXSupport

/// Watches PC/SC readers through pcscd and reads the URI of each NFC Forum Type 4 tag presented.
public struct NFCMonitor: Sendable {
    public let readerFilter: String?
    /// Whether readers with ACS's LED and buzzer commands show verdicts (`show`) and lose their detection beep.
    public let feedback: Bool
    private let directory = ReaderDirectory()
    private let now: @Sendable () -> ContinuousClock.Instant

    /// nil: every reader; otherwise readers whose name contains `readerFilter`. `now`: the clock that dates a tag's
    /// presentation and its read (the daemon's, so that a tap's time and its verdict's are on one clock).
    public init(readerFilter: String? = nil, feedback: Bool = false, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.readerFilter = readerFilter
        self.feedback = feedback
        self.now = now
    }

    /// Shows `signal` on `reader`'s LED and buzzer, on that reader's own thread once its read is done; returns at once.
    public func show(_ signal: ReaderSignal, onReader reader: String) {
        guard feedback else { return }
        directory.worker(named: reader)?.show(signal, publishedAt: now())
    }

    /// Watches on threads of its own until cancelled, handing each event to `emit` on the thread that saw it (the
    /// monitor's, or a reader's for a tag read); the PC/SC contexts are released before it returns.
    public func run(emit: @escaping @Sendable (NFCEvent) -> Void) async {
        let session = MonitorSession(readerFilter: readerFilter, feedback: feedback, directory: directory, now: now, emit: emit)
        await OSThread.run(name: "nfc-monitor", stop: session.stop) { session.run() }
    }

    /// The same events as a stream; stopping iteration stops the monitor. Each stream is an independent session.
    public func events() -> AsyncStream<NFCEvent> {
        let bridge = ThreadBridge<NFCEvent>()
        let session = MonitorSession(readerFilter: readerFilter, feedback: feedback, directory: directory, now: now, emit: bridge.send)
        bridge.onTermination(session.stop)
        OSThread.start(name: "nfc-monitor") { session.run() }
        return bridge.elements
    }
}
