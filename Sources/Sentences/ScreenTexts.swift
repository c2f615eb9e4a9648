import StationWire

/// Every sentence a scan screen shows, in a complete English and a complete
/// French set; each field can be replaced on its own.
public struct ScreenTexts: Sendable, Hashable {
    public var authentic: String
    /// The signal that a label may have been copied.
    public var replay: String
    public var invalidSignature: String
    public var mintingInProgress: String
    /// The anomaly is the brand's; the buyer has nothing to correct.
    public var neverRegistered: String
    public var unreadableLink: String
    /// `{wait}` stands for how long to wait (`waitSeconds`, `waitMinutes` or `waitMoment`).
    public var tooManyCalls: String
    /// A technical error, with no authenticity verdict.
    public var failure: String
    /// A chip read kept through an API outage: recorded, and checked later; no word on the product yet.
    public var deferred: String

    public var sealIntact: String
    /// Opened under the `inform` policy: a broken seal is not a counterfeit.
    public var sealOpened: String
    /// Opened under the `degrade` policy: lowered trust, still not a counterfeit.
    public var sealOpenedDegraded: String
    public var theftWarning: String

    public var anchored: String
    /// Said calmly: anchoring is done by hand, and most products are never anchored.
    public var neverAnchored: String
    /// The one anchoring state worth raising; never to be read as "not anchored".
    public var modifiedAfterAnchoring: String
    /// No anchoring information at all: neither "not anchored" nor a fault.
    public var noAnchoringInformation: String

    /// A code that is none of SealTrust's.
    public var notSealTrust: String
    /// A printed code that names nothing the API knows.
    public var notFound: String
    /// A printed serial names the item and proves nothing about the object.
    public var printedSerialNotice: String
    /// A GS1 link with no serial names a model only.
    public var productReferenceNotice: String

    /// What a passport of an item is: the brand's record, which proves nothing about the object in hand by itself.
    public var passportNotice: String
    /// A 401 or 403 for the passport: the tier asked is not open to this station's token.
    public var passportTierNotOpen: String
    /// The passport of a product the verdict named could not be found: a part's failure, never a verdict's sentence.
    public var passportNotFound: String
    /// The passport could not be read now: no verdict is at stake, and nothing was tapped.
    public var passportUnreadable: String
    /// The record a printed code gives is the named item's: nothing in it proves the object in hand is that item.
    public var namedItemOnly: String
    public var proofNotPublished: String
    public var certificateValid: String
    public var certificateRevoked: String
    public var certificateSuspended: String
    public var certificateExpired: String
    /// A status this station does not know: anything but `valid` is not valid, and is never shown as valid.
    public var certificateOtherStatus: String
    public var certificateNotIssued: String
    public var historyMinted: String
    public var historyAuthenticationScan: String
    public var historyOwnershipTransfer: String
    public var historyTheftReported: String
    /// A kind this station does not know (`kind` is an open string, never an error): `{kind}` is the kind's own words
    /// (`repair_logged` as "repair logged").
    public var historyOtherEvent: String
    /// A kind with no words to show (empty, too long, or not letters and digits).
    public var historyUnnamedEvent: String
    public var historyNotPublished: String
    /// One part of a passport over its limit: the rest still came.
    /// `{wait}` as in `tooManyCalls`.
    public var partTooManyCalls: String
    public var partNotOpen: String
    public var partUnreadable: String
    /// `{n}`: whole seconds, 2 or more.
    public var waitSeconds: String
    /// `{n}`: whole minutes, 2 or more.
    public var waitMinutes: String
    /// A wait of a second or less, or one nobody said.
    public var waitMoment: String

    /// `identified` is a printed serial's notice; a product reference's is `productReferenceNotice`.
    public func message(for verdict: Outcome) -> String {
        switch verdict {
        case .authentic: authentic
        case .replay: replay
        case .invalidSignature: invalidSignature
        case .mintingInProgress: mintingInProgress
        case .neverRegistered: neverRegistered
        case .unreadableLink: unreadableLink
        case .tooManyCalls: tooManyCalls
        case .failure: failure
        case .deferred: deferred
        case .identified: printedSerialNotice
        case .notFound: notFound
        case .notSealTrust: notSealTrust
        }
    }

    /// The verdict's sentence, with the wait `too_many_calls` asks for said as it is (nil: nobody said).
    public func message(for verdict: Outcome, retryAfterSeconds: Int?) -> String {
        verdict == .tooManyCalls ? tooManyCalls(wait: retryAfterSeconds) : message(for: verdict)
    }

    /// `too_many_calls`'s sentence for a wait of `seconds`.
    public func tooManyCalls(wait seconds: Int?) -> String {
        tooManyCalls.replacing("{wait}", with: wait(seconds))
    }

    /// A part of a passport over its limit, for a wait of `seconds`.
    public func partTooManyCalls(wait seconds: Int?) -> String {
        partTooManyCalls.replacing("{wait}", with: wait(seconds))
    }

    /// How long to wait, in words: minutes from two minutes on, rounded up, so that the wait said is never shorter.
    func wait(_ seconds: Int?) -> String {
        guard let seconds, seconds > 1 else { return waitMoment }
        if seconds < 120 { return waitSeconds.replacing("{n}", with: String(seconds)) }
        return waitMinutes.replacing("{n}", with: String((seconds + 59) / 60))
    }

    /// Only `valid`, exactly, is valid; a status in other letters (`Revoked`) is read for what it says, and one this
    /// station does not know is not valid.
    public func certificateText(status: String?) -> String {
        if status == "valid" { return certificateValid }
        switch status?.lowercased() {
        case "revoked": return certificateRevoked
        case "suspended": return certificateSuspended
        case "expired": return certificateExpired
        default: return certificateOtherStatus
        }
    }

    /// Whether a certificate of this status may be shown as valid.
    public static func certificateIsValid(status: String?) -> Bool {
        status == "valid"
    }

    public func historyText(kind: String) -> String {
        switch kind {
        case "minted": historyMinted
        case "authentication_scan": historyAuthenticationScan
        case "ownership_transfer": historyOwnershipTransfer
        case "theft_reported": historyTheftReported
        default: Self.words(ofKind: kind).map { historyOtherEvent.replacing("{kind}", with: $0) } ?? historyUnnamedEvent
        }
    }

    /// A kind's own words: `repair_logged` as "repair logged"; nil when it has none a screen may show (letters and
    /// digits in words, 60 characters at most: it comes from the API, and goes on a buyer's screen).
    static func words(ofKind kind: String) -> String? {
        let words = kind.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == " " }).joined(separator: " ")
        guard !words.isEmpty, words.count <= 60,
              words.unicodeScalars.allSatisfy({ $0 == " " || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else { return nil }
        return words
    }

    public static let english = ScreenTexts(
        authentic: "Authentic product.",
        replay: "Alert: this exact chip reading has already been presented. The label may have been copied.",
        invalidSignature: "This is not a SealTrust chip, or it is a copy.",
        mintingInProgress: "Authentic chip: its certificate is being written. Please try again in a moment.",
        neverRegistered: "Authentic chip, but nothing was ever registered for it. "
            + "The anomaly is on the brand's side: you have nothing to correct.",
        unreadableLink: "This link could not be read. Please scan again.",
        tooManyCalls: "Too many checks right now. Please try again in {wait}.",
        failure: "Technical error: no authenticity verdict could be given. Please tap or scan again.",
        deferred: "Recorded; it will be checked as soon as the service is back.",
        sealIntact: "Seal intact: this product has never been opened.",
        sealOpened: "The seal has been opened. This happens when a product is unpacked; it does not mean a counterfeit.",
        sealOpenedDegraded: "The seal has been opened, and the brand asks for lower trust in this product. "
            + "A broken seal does not mean a counterfeit.",
        theftWarning: "Warning: a theft report is open for this product.",
        anchored: "Anchored on Base.",
        neverAnchored: "Never anchored on Base, like most products: this is normal.",
        modifiedAfterAnchoring: "Modified after anchoring: this passport no longer matches the version anchored on Base.",
        noAnchoringInformation: "No information about anchoring.",
        notSealTrust: "This code is not a SealTrust code.",
        notFound: "Product not found. Check the code and try again.",
        printedSerialNotice: "Printed code: it names the item but does not prove that the object in hand is genuine.",
        productReferenceNotice: "Product reference: it describes the model, not the object in hand.",
        passportNotice: "The product's passport, as its brand recorded it.",
        passportTierNotOpen: "This level of the passport is not open to this station.",
        passportNotFound: "No passport was found for this product.",
        passportUnreadable: "The product's passport could not be read just now.",
        namedItemOnly: "This record is of the item the code names: nothing in it proves that the object in hand is that item.",
        proofNotPublished: "No proofs are published for this product.",
        certificateValid: "Certificate of authenticity: valid.",
        certificateRevoked: "Certificate of authenticity: revoked by its issuer. It is not valid.",
        certificateSuspended: "Certificate of authenticity: suspended by its issuer. It is not valid.",
        certificateExpired: "Certificate of authenticity: expired. It is not valid.",
        certificateOtherStatus: "Certificate of authenticity: not valid (its issuer gives a status this station does not know).",
        certificateNotIssued: "No certificate of authenticity has been issued for this product.",
        historyMinted: "Registered by its brand.",
        historyAuthenticationScan: "Checked by a scan.",
        historyOwnershipTransfer: "Passed to a new owner.",
        historyTheftReported: "Reported stolen.",
        historyOtherEvent: "Recorded in the product's history as \u{201C}{kind}\u{201D}.",
        historyUnnamedEvent: "Recorded in the product's history, of a kind this station cannot name.",
        historyNotPublished: "No history is published for this product.",
        partTooManyCalls: "Too many requests right now: this part will be back in {wait}.",
        partNotOpen: "This part is not open to this station.",
        partUnreadable: "This part could not be read just now.",
        waitSeconds: "{n} seconds",
        waitMinutes: "{n} minutes",
        waitMoment: "a moment"
    )

    public static let french = ScreenTexts(
        authentic: "Produit authentique.",
        replay: "Alerte\u{A0}: cette lecture exacte de la puce a déjà été présentée. L'étiquette a peut-être été copiée.",
        invalidSignature: "Ce n'est pas une puce SealTrust, ou c'est une copie.",
        mintingInProgress: "Puce authentique\u{A0}: son certificat est en cours d'écriture. Réessayez dans un instant.",
        neverRegistered: "Puce authentique, mais rien n'a jamais été enregistré pour elle. "
            + "L'anomalie est du côté de la marque\u{A0}: vous n'avez rien à corriger.",
        unreadableLink: "Ce lien n'a pas pu être lu. Scannez à nouveau.",
        tooManyCalls: "Trop de vérifications en ce moment. Réessayez dans {wait}.",
        failure: "Erreur technique\u{A0}: aucun verdict d'authenticité n'a pu être donné. Présentez ou scannez à nouveau.",
        deferred: "Enregistré\u{A0}; il sera vérifié dès que le service sera de retour.",
        sealIntact: "Scellé intact\u{A0}: ce produit n'a jamais été ouvert.",
        sealOpened: "Le scellé a été ouvert. C'est le cas dès qu'un produit est déballé\u{A0}; "
            + "cela ne signifie pas une contrefaçon.",
        sealOpenedDegraded: "Le scellé a été ouvert, et la marque demande une confiance réduite pour ce produit. "
            + "Un scellé rompu ne signifie pas une contrefaçon.",
        theftWarning: "Attention\u{A0}: un signalement de vol est ouvert pour ce produit.",
        anchored: "Ancré sur Base.",
        neverAnchored: "Jamais ancré sur Base, comme la plupart des produits\u{A0}: c'est normal.",
        modifiedAfterAnchoring: "Modifié après ancrage\u{A0}: ce passeport ne correspond plus à la version ancrée sur Base.",
        noAnchoringInformation: "Aucune information sur l'ancrage.",
        notSealTrust: "Ce code n'est pas un code SealTrust.",
        notFound: "Produit introuvable. Vérifiez le code et réessayez.",
        printedSerialNotice: "Code imprimé\u{A0}: il désigne l'article mais ne prouve pas que l'objet en main est authentique.",
        productReferenceNotice: "Référence produit\u{A0}: elle décrit le modèle, pas l'objet en main.",
        passportNotice: "Le passeport du produit, tel que sa marque l'a enregistré.",
        passportTierNotOpen: "Ce niveau du passeport n'est pas ouvert à cette station.",
        passportNotFound: "Aucun passeport n'a été trouvé pour ce produit.",
        passportUnreadable: "Le passeport du produit n'a pas pu être lu pour l'instant.",
        namedItemOnly: "Ce dossier est celui de l'article que le code désigne\u{A0}: rien n'y prouve que l'objet en main est cet article.",
        proofNotPublished: "Aucune preuve n'est publiée pour ce produit.",
        certificateValid: "Certificat d'authenticité\u{A0}: valide.",
        certificateRevoked: "Certificat d'authenticité\u{A0}: révoqué par son émetteur. Il n'est pas valide.",
        certificateSuspended: "Certificat d'authenticité\u{A0}: suspendu par son émetteur. Il n'est pas valide.",
        certificateExpired: "Certificat d'authenticité\u{A0}: expiré. Il n'est pas valide.",
        certificateOtherStatus: "Certificat d'authenticité\u{A0}: non valide (son émetteur donne un état que cette station ne connaît pas).",
        certificateNotIssued: "Aucun certificat d'authenticité n'a été émis pour ce produit.",
        historyMinted: "Enregistré par sa marque.",
        historyAuthenticationScan: "Vérifié par un scan.",
        historyOwnershipTransfer: "Passé à un nouveau propriétaire.",
        historyTheftReported: "Signalé volé.",
        historyOtherEvent: "Inscrit dans l'historique du produit comme \u{AB}\u{A0}{kind}\u{A0}\u{BB}.",
        historyUnnamedEvent: "Inscrit dans l'historique du produit, d'un genre que cette station ne sait pas nommer.",
        historyNotPublished: "Aucun historique n'est publié pour ce produit.",
        partTooManyCalls: "Trop de demandes en ce moment\u{A0}: cette partie reviendra dans {wait}.",
        partNotOpen: "Cette partie n'est pas ouverte à cette station.",
        partUnreadable: "Cette partie n'a pas pu être lue pour l'instant.",
        waitSeconds: "{n}\u{A0}secondes",
        waitMinutes: "{n}\u{A0}minutes",
        waitMoment: "un instant"
    )
}
