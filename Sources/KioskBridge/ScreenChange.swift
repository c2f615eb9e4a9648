/// What a journaled event does to the page's screen, so that a page opened later shows what a page open since
/// shows: a verdict for what is left of `--hold`, a read error briefly, a scan clears it to idle.
public enum ScreenChange: Sendable, Equatable {
    case unchanged
    case shows(for: Duration)
    case clears

    /// The page's rule for `event`: a scan clears the screen and becomes the newest; a verdict or a read error shows
    /// for the time it has left, and a verdict for another scan than the newest never replaces what is shown.
    static func of(_ event: PageEvent, newestScanID: inout String?) -> ScreenChange {
        switch event.type {
        case .event(.scan):
            newestScanID = event.scanID
            return .clears
        case .event(.verdict) where newestScanID != nil && event.scanID != newestScanID:
            return .unchanged
        case .event(.verdict), .event(.readError):
            return event.shownFor.map { .shows(for: $0) } ?? .unchanged
        default:
            return .unchanged
        }
    }
}
