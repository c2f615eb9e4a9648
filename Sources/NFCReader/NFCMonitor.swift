/// Watches PC/SC readers through pcscd and reads the URI of each NFC Forum Type 4 tag presented.
public struct NFCMonitor: Sendable {
    public let readerFilter: String?

    /// nil: every reader; otherwise readers whose name contains `readerFilter`.
    public init(readerFilter: String? = nil) {
        self.readerFilter = readerFilter
    }

    /// Starts watching on a thread of its own; ends (and releases the PC/SC context) when the consumer
    /// stops iterating or the task is cancelled. Each stream is an independent session.
    public func events() -> AsyncStream<NFCEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NFCEvent.self)
        let session = MonitorSession(readerFilter: readerFilter) { event in continuation.yield(event) }
        continuation.onTermination = { _ in session.stop() }
        session.start()
        return stream
    }
}
