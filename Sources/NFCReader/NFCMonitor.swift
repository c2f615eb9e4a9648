import POSIXSupport

/// Watches PC/SC readers through pcscd and reads the URI of each NFC Forum Type 4 tag presented.
public struct NFCMonitor: Sendable {
    public let readerFilter: String?

    /// nil: every reader; otherwise readers whose name contains `readerFilter`.
    public init(readerFilter: String? = nil) {
        self.readerFilter = readerFilter
    }

    /// Watches on threads of its own until cancelled, handing each event to `emit` on the thread that saw it (the
    /// monitor's, or a reader's for a tag read); the PC/SC contexts are released before it returns.
    public func run(emit: @escaping @Sendable (NFCEvent) -> Void) async {
        let session = MonitorSession(readerFilter: readerFilter, emit: emit)
        await OSThread.run(name: "nfc-monitor", stop: session.stop) { session.run() }
    }

    /// The same events as a stream; stopping iteration stops the monitor. Each stream is an independent session.
    public func events() -> AsyncStream<NFCEvent> {
        let bridge = ThreadBridge<NFCEvent>()
        let session = MonitorSession(readerFilter: readerFilter, emit: bridge.send)
        bridge.onTermination(session.stop)
        OSThread.start(name: "nfc-monitor") { session.run() }
        return bridge.elements
    }
}
