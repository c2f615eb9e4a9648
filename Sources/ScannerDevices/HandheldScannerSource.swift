import HandheldScanner
import POSIXSupport

/// A handheld scanner as a source of codes: a keyboard-wedge scanner's evdev node or a serial scanner's port,
/// hot-plugged, read on a thread of its own.
public struct HandheldScannerSource: Sendable {
    public let spec: ScannerSpec
    public let keymap: KeymapLayout
    public let rescanAfter: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `keymap`: the layout a keyboard-wedge scanner types in (unused for serial ones).
    /// `rescanAfter`: the same code read again within this time of its last read is not a new scan.
    /// `now`: the clock that dates each event (the daemon's, so that a code's time and its verdict's are on one clock).
    public init(spec: ScannerSpec, keymap: KeymapLayout = .us, rescanAfter: Duration = .seconds(2),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.spec = spec
        self.keymap = keymap
        self.rescanAfter = rescanAfter
        self.now = now
    }

    private var threadName: String {
        switch spec {
        case .evdev: "scanner-evdev"
        case .serial: "scanner-serial"
        }
    }

    /// Reads until cancelled (the grab is then given back and the thread has ended when this returns), or until
    /// a regular file of records has been played. `emit` is called on the reader's thread. `seenAt`: by `now`, when
    /// the reader saw the event; for a code, its terminator's arrival (a serial line's end).
    public func run(emit: @escaping @Sendable (ScannerEvent, _ seenAt: ContinuousClock.Instant) -> Void) async {
        let reader: ScannerReader
        do {
            reader = try ScannerReader(spec: spec, keymap: Keymap(keymap), rescanAfter: rescanAfter, now: now, emit: emit)
        } catch {
            emit(.error(detail: "cannot start: \(error)"), now())
            return
        }
        await OSThread.run(name: threadName, stop: reader.stop) { reader.run() }
    }

    /// The same events as a stream, which ends when the source ends for good; stopping iteration stops the reader.
    /// The thread starts at once, not when a task gets to run.
    public func events() -> AsyncStream<ScannerEvent> {
        let bridge = ThreadBridge<ScannerEvent>()
        let reader: ScannerReader
        do {
            reader = try ScannerReader(spec: spec, keymap: Keymap(keymap), rescanAfter: rescanAfter, now: now) { event, _ in
                bridge.send(event)
            }
        } catch {
            bridge.send(.error(detail: "cannot start: \(error)"))
            bridge.finish()
            return bridge.elements
        }
        bridge.onTermination(reader.stop)
        OSThread.start(name: threadName) {
            reader.run()
            bridge.finish()
        }
        return bridge.elements
    }
}
