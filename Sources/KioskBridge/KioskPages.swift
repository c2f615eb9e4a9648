import Sentences
import StationWire

/// The page in each language as the bridge serves it, and a digest of each.
///
/// A browser in `--kiosk` never reloads by itself: after the kiosk restarts with a new `--texts` or `--theme`, an
/// open page would keep its old words and colours. The `station` event carries the digest of the page served now,
/// and a page whose own differs loads itself again.
public struct KioskPages: Sendable {
    let documents: [KioskLanguage: [UInt8]]
    /// Each document's digest, which the document also carries (`data-page`).
    public let versions: [KioskLanguage: String]

    /// `sentences`: the `--texts` file's, in place of the page's own words.
    public init(holdSeconds: Int, theme: KioskTheme = .standard, sentences: SentenceOverrides = SentenceOverrides()) {
        var documents: [KioskLanguage: [UInt8]] = [:]
        var versions: [KioskLanguage: String] = [:]
        for language in KioskLanguage.allCases {
            let words = KioskWords.standard(language).replacing(sentences.replacing(in: language.rawValue))
            let document = KioskPage.document(language: language, words: words, holdSeconds: holdSeconds, theme: theme)
            documents[language] = Array(document.text.utf8)
            versions[language] = document.version
        }
        self.documents = documents
        self.versions = versions
    }
}
