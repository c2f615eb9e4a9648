/// An event written to the journal whose fdatasync then failed, after what followed its write had started (a scan's
/// API call): the line is kept and must be published, but it may not survive a power cut.
public struct UnsyncedAppend: Error, Sendable, CustomStringConvertible {
    public let event: JournaledEvent
    public let failure: JournalError

    public var description: String { "written but not made durable: \(failure)" }
}
