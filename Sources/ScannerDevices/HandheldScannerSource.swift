import HandheldScanner
import POSIXSupport

/// A handheld scanner as a source of codes: a keyboard-wedge scanner's evdev node or a serial scanner's port,
/// hot-plugged, read on a thread of its own.
public struct HandheldScannerSource: Sendable {
    public let spec: ScannerSpec
    public let keymap: KeymapLayout
    public let rescanAfter: Duration

    /// `keymap`: the layout a keyboard-wedge scanner types in (unused for serial ones).
    /// `rescanAfter`: the same code read again within this time of its last read is not a new scan.
    public init(spec: ScannerSpec, keymap: KeymapLayout = .us, rescanAfter: Duration = .seconds(2)) {
        self.spec = spec
        self.keymap = keymap
        self.rescanAfter = rescanAfter
    }

    /// Starts reading. The stream ends when the consumer stops iterating (the grab is then given back),
    /// or when a regular file of records has been played.
    public func events() -> AsyncStream<ScannerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ScannerEvent.self, bufferingPolicy: .unbounded)
        let reader: ScannerReader
        do {
            reader = try ScannerReader(spec: spec, keymap: Keymap(keymap), rescanAfter: rescanAfter, continuation: continuation)
        } catch {
            continuation.yield(.error(detail: "cannot start: \(error)"))
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in reader.stop() }
        let name = switch spec {
        case .evdev: "scanner-evdev"
        case .serial: "scanner-serial"
        }
        OSThread.start(name: name) { reader.run() }
        return stream
    }
}
