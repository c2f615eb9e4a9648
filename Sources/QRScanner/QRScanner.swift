import POSIXSupport

/// Reads QR codes from a camera or a YUV4MPEG2 stream, one scan per appearance.
public struct QRScanner: Sendable {
    public let source: QRSourceSpec
    public let rescanAfter: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `rescanAfter`: how long a code must be out of view before it scans again. `now`: the clock that dates each
    /// frame's arrival (the daemon's, so that a code's time and its verdict's are on one clock).
    public init(source: QRSourceSpec, rescanAfter: Duration = .seconds(2), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.source = source
        self.rescanAfter = rescanAfter
        self.now = now
    }

    /// Reads on threads of its own, handing each event to `emit` on the decoder thread, until cancelled or until the
    /// source ends for good (a regular file played once, stdin closed). `seenAt`, by `now`: for a code, when the frame
    /// it was decoded from arrived, not when its decoding ended.
    public func run(emit: @escaping @Sendable (QREvent, _ seenAt: ContinuousClock.Instant) -> Void) async {
        let session = makeSession(emit: emit)
        session.startReading()
        await OSThread.run(name: "qr-decoder", stop: session.stop) { session.decodeUntilEnd() }
    }

    /// The same events as a stream, which ends when the source ends for good; stopping iteration stops the scanner.
    public func events() -> AsyncStream<QREvent> {
        let bridge = ThreadBridge<QREvent>()
        let session = makeSession { event, _ in bridge.send(event) }
        bridge.onTermination(session.stop)
        session.startReading()
        OSThread.start(name: "qr-decoder") {
            session.decodeUntilEnd()
            bridge.finish()
        }
        return bridge.elements
    }

    private func makeSession(emit: @escaping @Sendable (QREvent, ContinuousClock.Instant) -> Void) -> ScanSession {
        let frames: any FrameSource = switch source {
        case .camera(let device): CameraSource(device: device, now: now)
        case .y4m(let path): Y4MSource(path: path, now: now)
        }
        return ScanSession(source: frames, sourceID: source.id, rescanAfter: rescanAfter, now: now, emit: emit)
    }
}
