/// What the monitor reports, in the order it happens.
public enum NFCEvent: Sendable, Equatable {
    /// pcscd cannot be reached; the monitor keeps retrying with back-off and says this once per outage.
    case serviceUnavailable(detail: String)
    /// pcscd answers, but lists no reader (or none whose name matches the filter).
    case noReaders
    case readerAttached(name: String)
    /// Also said for every reader when pcscd goes away, so attachments and removals always pair up.
    case readerRemoved(name: String)
    case tagRead(TagRead)
    case tagFailed(reader: String, failure: TagReadFailure)
    /// A LED and buzzer command not sent (no way to the reader now), or a reader found to refuse them: for a debug line.
    case feedbackSkipped(reader: String, detail: String)
}
