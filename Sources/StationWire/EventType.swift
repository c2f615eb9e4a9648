/// The journaled events' `type`, which `watch` selects from.
public enum EventType: String, Sendable, Hashable, CaseIterable {
    case source
    case scan
    case readError = "read_error"
    case verdict
}
