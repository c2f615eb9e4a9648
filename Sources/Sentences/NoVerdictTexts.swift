import StationWire

/// The sentences of a scan that gets no verdict and that `ScreenTexts` does not cover: a tag or code that could not
/// be read (a `read_error`'s `message`), and credentials the API refused (a `failure` no scan again can mend).
public struct NoVerdictTexts: Sendable {
    public var holdStill: String
    public var noSealTrustLink: String
    public var unreadableTag: String
    public var unreadableCode: String
    public var scanAgain: String
    /// A 401 or 403: scanning again cannot help, the operator must fix the station's token.
    public var credentialsRefused: String

    public static let english = NoVerdictTexts(
        holdStill: "Hold the tag still and try again.",
        noSealTrustLink: "This tag carries no SealTrust link.",
        unreadableTag: "This tag could not be read. Try again.",
        unreadableCode: "This code could not be read. It is not a SealTrust code.",
        scanAgain: "The code was not read whole. Scan it again.",
        credentialsRefused: "SealTrust refused this station's credentials: no verdict can be given. "
            + "Operator: check the station's access token."
    )

    public static let french = NoVerdictTexts(
        holdStill: "Maintenez l'étiquette immobile et réessayez.",
        noSealTrustLink: "Cette étiquette ne porte pas de lien SealTrust.",
        unreadableTag: "Cette étiquette n'a pas pu être lue. Réessayez.",
        unreadableCode: "Ce code n'a pas pu être lu. Ce n'est pas un code SealTrust.",
        scanAgain: "Le code n'a pas été lu en entier. Scannez-le de nouveau.",
        credentialsRefused: "SealTrust a refusé les identifiants de cette station\u{A0}: aucun verdict ne peut être donné. "
            + "Opérateur\u{A0}: vérifiez le jeton d'accès de la station."
    )

    /// What to show for a `read_error`, by its reason.
    public func readError(reason: ReadErrorReason) -> String {
        switch reason {
        case .removedDuringRead, .io: holdStill
        case .noNDEFApplication, .emptyNDEF, .noURIRecord: noSealTrustLink
        case .invalidUTF8, .unmappedKey, .tooLong: unreadableCode
        case .incomplete: scanAgain
        case .malformedNDEF, .lengthBeyondFile, .statusWord: unreadableTag
        }
    }
}
