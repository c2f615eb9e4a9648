import JSONCore

/// One journaled event of protocol 1, typed; the journal adds `type`, `seq` and `at` in front of `fields`.
public enum StationEvent: Sendable, Hashable {
    case source(SourceEvent)
    case scan(ScanEvent)
    case readError(ReadErrorEvent)
    case verdict(VerdictEvent)

    public var type: EventType {
        switch self {
        case .source: .source
        case .scan: .scan
        case .readError: .readError
        case .verdict: .verdict
        }
    }

    /// The members after `type`, `seq` and `at`, in the protocol's order.
    public var fields: [(String, JSON)] {
        switch self {
        case .source(let event): event.fields
        case .scan(let event): event.fields
        case .readError(let event): event.fields
        case .verdict(let event): event.fields
        }
    }
}
