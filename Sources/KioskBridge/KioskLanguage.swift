/// The language of the page's own words: `--lang`, else the daemon's. The verdicts' sentences come from the daemon.
public enum KioskLanguage: String, Sendable, CaseIterable {
    case en, fr

    var title: String {
        switch self {
        case .en: "SealTrust station"
        case .fr: "Station SealTrust"
        }
    }

    /// Shown before the script runs, and by the script whenever the page is idle.
    var idlePrompt: String {
        switch self {
        case .en: "Tap a tag or show a code"
        case .fr: "Présentez une étiquette ou un code"
        }
    }
}
