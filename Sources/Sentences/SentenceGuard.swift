/// What a `texts` file may not do, whatever a brand's wording (sealtrust-texts(5)): a brand may reword, never
/// invert. An alert may not say what a reassuring sentence says, "no information" may not say "not anchored", and
/// no sentence may be empty to the eye.
public enum SentenceGuard {
    /// The sentences that raise something a buyer must not miss, or say what a code does not prove: each must stay
    /// an alert or a caveat.
    public static let alerts: Set<SentenceID> = [
        .replay, .invalidSignature, .theftWarning, .kioskTheft, .modifiedAfterAnchoring, .certificateRevoked,
        .certificateSuspended, .certificateExpired, .certificateOtherStatus, .namedItemOnly, .historyTheftReported,
        .printedSerialNotice, .productReferenceNotice, .sealOpenedDegraded, .kioskSealOpenedDegraded, .kioskAboutNamedItem,
    ]

    /// Words that would read as "not anchored", in either language, lower case.
    static let notAnchored = ["not anchored", "never anchored", "unanchored", "non ancré", "pas ancré", "jamais ancré"]

    /// The first inversion in `overrides`, naming its language and id; nil when there is none. `defaults`: this
    /// program's standard sentences by language, against which an alert's replacement is compared.
    public static func inversion(in overrides: SentenceOverrides, defaults: [String: [SentenceID: String]]) -> String? {
        let reassuring = Set(defaults.values.flatMap { sentences in
            sentences.filter { !alerts.contains($0.key) }.map { normalised($0.value) }
        })
        for language in SentenceOverrides.languages {
            for (id, sentence) in overrides.replacing(in: language).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let name = "\(language).\(id.rawValue)"
                guard !normalised(sentence).isEmpty else { return "\(name) is empty to the eye" }
                if alerts.contains(id), reassuring.contains(normalised(sentence)) {
                    return "\(name) says what another sentence says: an alert or a caveat must stay one"
                }
                if id == .noAnchoringInformation, notAnchored.contains(where: sentence.lowercased().contains) {
                    return "\(name) must never say or suggest \"not anchored\": it means no information"
                }
            }
        }
        return nil
    }

    /// The letters a reader sees: lower case, without spaces, invisible characters and closing punctuation.
    static func normalised(_ sentence: String) -> String {
        String(String.UnicodeScalarView(sentence.lowercased().unicodeScalars.filter { scalar in
            !(scalar.properties.isWhitespace || invisible.contains(scalar.value) || ".!:;,".unicodeScalars.contains(scalar))
        }))
    }

    /// Zero-width and format characters, and the spaces `isWhitespace` leaves out.
    static let invisible: Set<UInt32> = [0x00A0, 0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x200C, 0x200D,
                                         0x200E, 0x200F, 0x202F, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x2007,
                                         0x3164, 0xFEFF, 0xFFA0]
}
