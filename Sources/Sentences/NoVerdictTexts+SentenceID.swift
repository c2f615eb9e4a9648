extension NoVerdictTexts: SentenceSet {
    /// Each sentence's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<NoVerdictTexts, String> & Sendable] = [
        .readErrorHoldStill: \.holdStill,
        .readErrorNoSealTrustLink: \.noSealTrustLink,
        .readErrorUnreadableTag: \.unreadableTag,
        .readErrorUnreadableCode: \.unreadableCode,
        .readErrorScanAgain: \.scanAgain,
        .credentialsRefused: \.credentialsRefused,
    ]
}
