/// Where a source stands: the `state` of a `source` event.
public enum SourceState: String, Sendable, Hashable, CaseIterable {
    /// The medium is configured but no device is there (yet).
    case absent
    case attached
    case ready
    case removed
    case error
}
