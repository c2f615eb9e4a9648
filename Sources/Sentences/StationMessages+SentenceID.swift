extension StationMessages {
    /// Each sentence's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<StationMessages, String> & Sendable] = [
        .readErrorHoldStill: \.holdStill,
        .readErrorNoSealTrustLink: \.noSealTrustLink,
        .readErrorUnreadableTag: \.unreadableTag,
        .readErrorUnreadableCode: \.unreadableCode,
        .readErrorScanAgain: \.scanAgain,
        .credentialsRefused: \.credentialsRefused,
    ]

    /// These sentences with the file's in their place.
    public func replacing(_ sentences: [SentenceID: String]) -> StationMessages {
        var messages = self
        for (id, sentence) in sentences {
            if let field = Self.fieldsByID[id] { messages[keyPath: field] = sentence }
        }
        return messages
    }
}
