import QRScanner
import ScanJournal
import StationWire

/// A camera or a Y4M stream as a source.
public struct QRSource: ScanSource {
    public let name = "qr"
    let scanner: QRScanner

    /// `clock`: the daemon's; its monotonic time dates each frame's arrival, which a code's `readAt` is.
    public init(_ spec: QRSourceSpec, rescanAfter: Duration, clock: DaemonClock) {
        scanner = QRScanner(source: spec, rescanAfter: rescanAfter, now: clock.monotonic)
    }

    public func run(report: @escaping @Sendable (SourceReport) -> Void) async {
        await scanner.run { event, seenAt in
            switch event {
            case .sourceAbsent(let id):
                let detail = id == "camera" ? "no V4L2 capture device" : "no such file yet"
                report(.state(SourceEvent(id: id, medium: .qr, state: .absent, detail: detail)))
            case .sourceReady(let id, let detail):
                report(.state(SourceEvent(id: id, medium: .qr, state: .ready, detail: detail), replacing: id == "camera" ? nil : "camera"))
            case .sourceRemoved(let id, let detail):
                report(.state(SourceEvent(id: id, medium: .qr, state: .removed, detail: detail)))
            case .sourceError(let id, let detail):
                report(.state(SourceEvent(id: id, medium: .qr, state: .error, detail: detail)))
            case .code(let source, let payload):
                report(.scan(ScanRead(raw: payload, source: source, medium: .qr, readAt: seenAt)))
            case .unreadable(let source, let detail):
                report(.readError(ReadFailure(source: source, medium: .qr, reason: .invalidUTF8, detail: detail)))
            }
        }
    }
}
