/// What a scanner reports: the state of its source, and the codes it sees.
public enum QREvent: Sendable, Equatable {
    case sourceAbsent(id: String)
    /// e.g. "1280x720 Y4M 25 fps C420jpeg".
    case sourceReady(id: String, detail: String)
    /// End of stream, camera gone.
    case sourceRemoved(id: String, detail: String)
    /// Bad header, truncated frame, open failure.
    case sourceError(id: String, detail: String)
    /// Exactly the bytes printed in the code, which are valid UTF-8.
    case code(source: String, payload: String)
    /// A QR code whose payload is not UTF-8 (the socket protocol's reason `invalid_utf8`).
    case unreadable(source: String, detail: String)
}
