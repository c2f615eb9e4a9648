import POSIXSupport

/// One running scanner: a reader thread runs the source, a decoder thread turns
/// frames into events. Both end when the scanner is stopped or the source ends for good.
final class ScanSession: Sendable {
    private let source: any FrameSource
    private let sourceID: String
    private let rescanAfter: Duration
    /// Dates a state change (a code is dated by its frame).
    private let now: @Sendable () -> ContinuousClock.Instant
    private let mailbox = FrameMailbox()
    /// Each event with when it was seen: a code's frame's arrival.
    private let emit: @Sendable (QREvent, ContinuousClock.Instant) -> Void

    init(source: any FrameSource, sourceID: String, rescanAfter: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant,
         emit: @escaping @Sendable (QREvent, ContinuousClock.Instant) -> Void) {
        self.source = source
        self.sourceID = sourceID
        self.rescanAfter = rescanAfter
        self.now = now
        self.emit = emit
    }

    /// Starts the reader thread; the caller runs `decodeUntilEnd` on the decoder thread.
    func startReading() {
        OSThread.start(name: "qr-reader") { [source, mailbox] in
            source.run(into: mailbox)
            mailbox.finish()
        }
    }

    func stop() {
        mailbox.stop()
    }

    /// Decodes until the source ends for good or the session stops.
    func decodeUntilEnd() {
        // An unchanged frame shows what the last decoded one showed: still in view, not decoded again.
        var decoder = QRFrameDecoder(skippingUnchangedFrames: true)
        var tracker = AppearanceTracker(rescanAfter: rescanAfter)
        var currentID = sourceID
        while let item = mailbox.take() {
            switch item {
            case .end:
                return
            case .event(let event):
                if case .sourceReady(let id, _) = event {
                    currentID = id
                    tracker.reset()
                    decoder = QRFrameDecoder(skippingUnchangedFrames: true)
                }
                emit(event, now())
            case .frame(let frame):
                let payloads = frame.luma.withUnsafeBufferPointer { decoder.decode(luma: $0, width: frame.width, height: frame.height) }
                for payload in tracker.newAppearances(in: payloads, at: frame.time) {
                    emit(Self.event(for: payload, from: currentID), frame.arrivedAt)
                }
            }
        }
    }

    /// A scan when the bytes are UTF-8; otherwise an unreadable code (never a scan).
    static func event(for payload: [UInt8], from source: String) -> QREvent {
        if let text = String(validating: payload, as: UTF8.self) {
            return .code(source: source, payload: text)
        }
        return .unreadable(source: source, detail: "invalid_utf8: the code's \(payload.count) bytes are not UTF-8 text")
    }
}
