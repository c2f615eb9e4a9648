extension ScreenTexts {
    /// Each sentence's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<ScreenTexts, String> & Sendable] = [
        .authentic: \.authentic,
        .replay: \.replay,
        .invalidSignature: \.invalidSignature,
        .mintingInProgress: \.mintingInProgress,
        .neverRegistered: \.neverRegistered,
        .unreadableLink: \.unreadableLink,
        .tooManyCalls: \.tooManyCalls,
        .failure: \.failure,
        .deferred: \.deferred,
        .sealIntact: \.sealIntact,
        .sealOpened: \.sealOpened,
        .sealOpenedDegraded: \.sealOpenedDegraded,
        .theftWarning: \.theftWarning,
        .anchored: \.anchored,
        .neverAnchored: \.neverAnchored,
        .modifiedAfterAnchoring: \.modifiedAfterAnchoring,
        .noAnchoringInformation: \.noAnchoringInformation,
        .notSealTrust: \.notSealTrust,
        .notFound: \.notFound,
        .printedSerialNotice: \.printedSerialNotice,
        .productReferenceNotice: \.productReferenceNotice,
        .passportNotice: \.passportNotice,
        .passportTierNotOpen: \.passportTierNotOpen,
        .passportNotFound: \.passportNotFound,
        .passportUnreadable: \.passportUnreadable,
        .namedItemOnly: \.namedItemOnly,
        .proofNotPublished: \.proofNotPublished,
        .certificateValid: \.certificateValid,
        .certificateRevoked: \.certificateRevoked,
        .certificateSuspended: \.certificateSuspended,
        .certificateExpired: \.certificateExpired,
        .certificateOtherStatus: \.certificateOtherStatus,
        .certificateNotIssued: \.certificateNotIssued,
        .historyMinted: \.historyMinted,
        .historyAuthenticationScan: \.historyAuthenticationScan,
        .historyOwnershipTransfer: \.historyOwnershipTransfer,
        .historyTheftReported: \.historyTheftReported,
        .historyOtherEvent: \.historyOtherEvent,
        .historyUnnamedEvent: \.historyUnnamedEvent,
        .historyNotPublished: \.historyNotPublished,
        .partTooManyCalls: \.partTooManyCalls,
        .partNotOpen: \.partNotOpen,
        .partUnreadable: \.partUnreadable,
        .waitSeconds: \.waitSeconds,
        .waitMinutes: \.waitMinutes,
        .waitMoment: \.waitMoment,
    ]

    /// The standard sentences by language and id, which a `texts` file's alerts may not repeat (`SentenceGuard`).
    public static let defaultsByLanguage: [String: [SentenceID: String]] = [
        "en": fieldsByID.mapValues { english[keyPath: $0] }, "fr": fieldsByID.mapValues { french[keyPath: $0] },
    ]

    /// These sentences with the file's in their place.
    public func replacing(_ sentences: [SentenceID: String]) -> ScreenTexts {
        var texts = self
        for (id, sentence) in sentences {
            if let field = Self.fieldsByID[id] { texts[keyPath: field] = sentence }
        }
        return texts
    }
}
