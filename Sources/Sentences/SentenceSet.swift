/// A set of sentences, complete in English and in French, each field replaced on its own by its id in a `texts` file:
/// the one shape of `ScreenTexts`, `NoVerdictTexts` and `KioskWords`.
public protocol SentenceSet: Sendable {
    static var english: Self { get }
    static var french: Self { get }
    /// Each sentence's id in a `texts` file.
    static var fieldsByID: [SentenceID: WritableKeyPath<Self, String> & Sendable] { get }
}

extension SentenceSet {
    /// The standard sentences by language and id, which a `texts` file's alerts may not repeat (`SentenceGuard`).
    public static var defaultsByLanguage: [String: [SentenceID: String]] {
        ["en": fieldsByID.mapValues { english[keyPath: $0] }, "fr": fieldsByID.mapValues { french[keyPath: $0] }]
    }

    /// These sentences with the file's in their place.
    public func replacing(_ sentences: [SentenceID: String]) -> Self {
        var set = self
        for (id, sentence) in sentences {
            if let field = Self.fieldsByID[id] { set[keyPath: field] = sentence }
        }
        return set
    }
}
