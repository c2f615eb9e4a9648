import HandheldScanner

/// What a handheld scanner source reports, in order.
public enum ScannerEvent: Sendable, Equatable {
    /// The device path does not exist (yet): waiting for it to appear.
    case absent(detail: String)
    /// Opened (and grabbed, for an evdev node): codes are read from now on.
    case ready(detail: String)
    /// The device went away or its stream ended; it is picked up again when it returns.
    case removed(detail: String)
    /// The device exists but cannot be used (permissions, grabbed by another program, not a terminal).
    case error(detail: String)
    /// A whole code, exactly as typed or sent, without its terminator.
    case code(String)
    case failure(ScannerReadFailure)
}
