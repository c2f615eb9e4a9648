/// Reads QR codes from a camera or a YUV4MPEG2 stream, one scan per appearance.
public struct QRScanner: Sendable {
    public let source: QRSourceSpec
    public let rescanAfter: Duration

    /// `rescanAfter`: how long a code must be out of view before it scans again.
    public init(source: QRSourceSpec, rescanAfter: Duration = .seconds(2)) {
        self.source = source
        self.rescanAfter = rescanAfter
    }

    /// Starts reading on threads of its own. The stream ends when the consumer stops
    /// iterating, or when the source ends for good (a regular file played once, stdin closed).
    public func events() -> AsyncStream<QREvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: QREvent.self, bufferingPolicy: .unbounded)
        let frames: any FrameSource = switch source {
        case .camera(let device): CameraSource(device: device)
        case .y4m(let path): Y4MSource(path: path)
        }
        let session = ScanSession(source: frames, sourceID: source.id, rescanAfter: rescanAfter, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        session.start()
        return stream
    }
}
