import StationWire

/// What a journaled event does to the page's screen, so that a page opened later shows what a page open since
/// shows: a verdict for `--hold`, a read error briefly, a scan clears it to idle.
public enum ScreenChange: Sendable, Equatable {
    case unchanged
    case shows(for: Duration)
    case clears

    /// The page's rule for an event of `type`: a read error is shown at most 4 s, as the page does.
    public static func of(_ type: MessageType, hold: Duration) -> ScreenChange {
        switch type {
        case .event(.verdict): .shows(for: hold)
        case .event(.readError): .shows(for: min(hold, .seconds(4)))
        case .event(.scan): .clears
        default: .unchanged
        }
    }
}
