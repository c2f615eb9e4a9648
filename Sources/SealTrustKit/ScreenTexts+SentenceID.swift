import StationWire

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
        .proofNotPublished: \.proofNotPublished,
        .certificateValid: \.certificateValid,
        .certificateRevoked: \.certificateRevoked,
        .certificateOtherStatus: \.certificateOtherStatus,
        .certificateNotIssued: \.certificateNotIssued,
        .historyMinted: \.historyMinted,
        .historyAuthenticationScan: \.historyAuthenticationScan,
        .historyOwnershipTransfer: \.historyOwnershipTransfer,
        .historyTheftReported: \.historyTheftReported,
        .historyOtherEvent: \.historyOtherEvent,
        .historyNotPublished: \.historyNotPublished,
        .partTooManyCalls: \.partTooManyCalls,
        .partNotOpen: \.partNotOpen,
        .partUnreadable: \.partUnreadable,
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
