import StationWire

/// Something that reads codes: an NFC reader, a camera or a Y4M stream, and later a handheld scanner.
///
/// A source runs as a service of its own; it hands each report to the station core at once, from the thread that
/// read it, which the core uses to journal it: no hand-off between a reader and the pipeline.
public protocol ScanSource: Sendable {
    /// For the log: "nfc", "qr".
    var name: String { get }
    /// Reads until cancelled, or until the source ends for good (a Y4M file played once).
    func run(report: @escaping @Sendable (SourceReport) -> Void) async
    /// Shows a published verdict at the device that read its code, if it can (a reader's LED and buzzer); returns at once.
    func show(_ verdict: VerdictEvent)
}

extension ScanSource {
    public func show(_ verdict: VerdictEvent) {}
}

/// What a source tells the core.
public enum SourceReport: Sendable, Hashable {
    /// A device's state. `replacing`: the placeholder (`nfc`, `camera`) this device now stands for.
    case state(SourceEvent, replacing: String? = nil)
    case scan(ScanRead)
    case readError(ReadFailure)
    /// Worth a debug line and nothing more.
    case note(String)
}

/// One string read, exactly as read.
public struct ScanRead: Sendable, Hashable {
    public var raw: String
    /// `nfc:<reader>`, `camera:<device>`, `y4m:<path>`...
    public var source: String
    public var medium: Medium
    /// When the source saw the code, the same point for every medium: the tag's arrival on the reader (card-present),
    /// the camera frame's or Y4M frame's arrival from its device or file (before decoding), the handheld scanner's
    /// line end, the `verify` command's arrival. `latency_ms` counts from here.
    public var readAt: ContinuousClock.Instant

    public init(raw: String, source: String, medium: Medium, readAt: ContinuousClock.Instant) {
        self.raw = raw
        self.source = source
        self.medium = medium
        self.readAt = readAt
    }
}

/// A tag or code seen but not read.
public struct ReadFailure: Sendable, Hashable {
    public var source: String
    public var medium: Medium
    public var reason: ReadErrorReason
    public var detail: String

    public init(source: String, medium: Medium, reason: ReadErrorReason, detail: String) {
        self.source = source
        self.medium = medium
        self.reason = reason
        self.detail = detail
    }
}
