/// The language of the page's own words: `--lang`, else the daemon's. The verdicts' sentences come from the daemon.
public enum KioskLanguage: String, Sendable, CaseIterable {
    case en, fr
}
