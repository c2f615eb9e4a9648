import HandheldScanner
import ScanJournal
import ScannerDevices
import StationWire

/// A handheld scanner as a source: a keyboard-wedge scanner (`evdev:<PATH>`, medium `hid`) or a USB-serial one
/// (`serial:<PATH>`, medium `serial`).
public struct HandheldSource: ScanSource {
    public let name: String
    let scanner: HandheldScannerSource

    /// `clock`: the daemon's; its monotonic time dates each code read (`readAt`).
    public init(_ spec: ScannerSpec, keymap: KeymapLayout, rescanAfter: Duration, clock: DaemonClock) {
        scanner = HandheldScannerSource(spec: spec, keymap: keymap, rescanAfter: rescanAfter, now: clock.monotonic)
        name = spec.id
    }

    public func run(report: @escaping @Sendable (SourceReport) -> Void) async {
        let id = scanner.spec.id
        let medium: Medium = switch scanner.spec {
        case .evdev: .hid
        case .serial: .serial
        }
        await scanner.run { event, seenAt in
            switch event {
            case .absent(let detail): report(.state(SourceEvent(id: id, medium: medium, state: .absent, detail: detail)))
            case .ready(let detail): report(.state(SourceEvent(id: id, medium: medium, state: .ready, detail: detail)))
            case .removed(let detail): report(.state(SourceEvent(id: id, medium: medium, state: .removed, detail: detail)))
            case .error(let detail): report(.state(SourceEvent(id: id, medium: medium, state: .error, detail: detail)))
            case .code(let code): report(.scan(ScanRead(raw: code, source: id, medium: medium, readAt: seenAt)))
            case .failure(let failure):
                report(.readError(ReadFailure(source: id, medium: medium, reason: ReadErrorReason(failure.reason), detail: failure.detail)))
            }
        }
    }
}
