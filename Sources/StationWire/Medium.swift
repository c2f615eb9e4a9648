/// How a source reads: the `medium` of `source`, `scan` and `read_error` events.
public enum Medium: String, Sendable, Hashable, CaseIterable {
    case nfc
    /// Cameras and Y4M streams.
    case qr
    /// Keyboard-wedge scanners.
    case hid
    /// USB-serial scanners.
    case serial
    /// A client's `verify`.
    case manual
}
