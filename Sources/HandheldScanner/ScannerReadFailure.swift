/// Why a handheld scanner's code is not passed on. `reason` is the socket protocol's `read_error` reason.
public struct ScannerReadFailure: Error, Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// The code stopped without its terminator (more than 100 ms of silence, lost events, the device left).
        case incomplete
        /// A key with no character in the keymap.
        case unmappedKey = "unmapped_key"
        /// More than 4,096 characters (keyboard) or bytes (serial) before the terminator.
        case tooLong = "too_long"
        /// A serial line whose bytes are not UTF-8: it cannot be a URL, and the socket carries text.
        case invalidUTF8 = "invalid_utf8"
    }

    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }
}
