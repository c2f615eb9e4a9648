extension NoVerdictTexts {
    /// Each sentence's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<NoVerdictTexts, String> & Sendable] = [
        .readErrorHoldStill: \.holdStill,
        .readErrorNoSealTrustLink: \.noSealTrustLink,
        .readErrorUnreadableTag: \.unreadableTag,
        .readErrorUnreadableCode: \.unreadableCode,
        .readErrorScanAgain: \.scanAgain,
        .credentialsRefused: \.credentialsRefused,
    ]

    /// These sentences with the file's in their place.
    public func replacing(_ sentences: [SentenceID: String]) -> NoVerdictTexts {
        var messages = self
        for (id, sentence) in sentences {
            if let field = Self.fieldsByID[id] { messages[keyPath: field] = sentence }
        }
        return messages
    }
}
