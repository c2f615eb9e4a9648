import JSONCore
import StationWire

/// The page's own words, in a complete English and a complete French set; each replaced on its own by a `texts` file
/// (`--texts`, the daemon's file). The verdicts' and the product's sentences are the daemon's.
public struct KioskWords: Sendable, Equatable {
    var title: String
    /// Shown before the script runs, and whenever the page is idle.
    var idle: String
    var idleHint: String
    var offline: String
    var offlineHint: String
    var sealOpened: String
    var sealOpenedDegraded: String
    var theft: String
    /// Followed by the city and country of a `never_registered` scan.
    var scanArea: String
    /// Followed by the tier served.
    var tierServed: String
    var certificateHint: String
    /// The certificate code's text alternative.
    var certificateCode: String
    /// Under `identified`: the panel's record is the named item's, not the object's in hand.
    var aboutNamedItem: String
    /// Above the product's history: the daemon's sentences alone do not say what the dated lines are.
    var historyLabel: String
    /// Before the sentence of a part the daemon could not read for now, which says only "this part".
    var partProof: String
    var partCertificate: String
    var partHistory: String
    var tierPublic: String
    var tierEndUser: String
    var tierRepairer: String
    var tierRecycler: String
    var tierUpstream: String
    var tierAuthority: String

    public static let english = KioskWords(
        title: "SealTrust station", idle: "Tap a tag or show a code", idleHint: "Hold it close to the reader or the camera",
        offline: "Station offline", offlineHint: "The station will be back in a moment.",
        sealOpened: "Seal opened", sealOpenedDegraded: "Seal opened: the brand lowers the trust shown", theft: "Reported stolen",
        scanArea: "Scanned near ", tierServed: "Passport shown at the level: ",
        certificateHint: "Scan this code to keep the certificate on your phone.",
        certificateCode: "QR code of the certificate of authenticity",
        aboutNamedItem: "What the brand recorded about the item this code names, not about the object in hand:",
        historyLabel: "History, newest first:",
        partProof: "Proof of anchoring: ", partCertificate: "Certificate: ", partHistory: "History: ",
        tierPublic: "public", tierEndUser: "owner", tierRepairer: "repairer", tierRecycler: "recycler", tierUpstream: "supply chain",
        tierAuthority: "authority")

    public static let french = KioskWords(
        title: "Station SealTrust", idle: "Présentez une étiquette ou un code", idleHint: "Approchez-le du lecteur ou de la caméra",
        offline: "Station hors ligne", offlineHint: "La station revient dans un instant.",
        sealOpened: "Scellé ouvert", sealOpenedDegraded: "Scellé ouvert : la marque réduit la confiance affichée", theft: "Signalé volé",
        scanArea: "Scanné près de ", tierServed: "Passeport affiché au niveau\u{A0}: ",
        certificateHint: "Scannez ce code pour garder le certificat sur votre téléphone.",
        certificateCode: "Code QR du certificat d'authenticité",
        aboutNamedItem: "Ce que la marque a enregistré sur l'article que ce code désigne, pas sur l'objet en main\u{A0}:",
        historyLabel: "Historique, du plus récent au plus ancien\u{A0}:",
        partProof: "Preuve d'ancrage\u{A0}: ", partCertificate: "Certificat\u{A0}: ", partHistory: "Historique\u{A0}: ",
        tierPublic: "public", tierEndUser: "propriétaire", tierRepairer: "réparateur", tierRecycler: "recycleur",
        tierUpstream: "chaîne d'approvisionnement", tierAuthority: "autorité")

    public static func standard(_ language: KioskLanguage) -> KioskWords {
        language == .fr ? french : english
    }

    /// Each word's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<KioskWords, String> & Sendable] = [
        .kioskTitle: \.title, .kioskIdle: \.idle, .kioskIdleHint: \.idleHint, .kioskOffline: \.offline,
        .kioskOfflineHint: \.offlineHint, .kioskSealOpened: \.sealOpened,
        .kioskSealOpenedDegraded: \.sealOpenedDegraded, .kioskTheft: \.theft, .kioskScanArea: \.scanArea,
.kioskTierServed: \.tierServed, .kioskCertificateHint: \.certificateHint,
        .kioskCertificateCode: \.certificateCode, .kioskAboutNamedItem: \.aboutNamedItem, .kioskHistoryLabel: \.historyLabel,
        .kioskPartProof: \.partProof, .kioskPartCertificate: \.partCertificate, .kioskPartHistory: \.partHistory, .kioskTierPublic: \.tierPublic,
        .kioskTierEndUser: \.tierEndUser, .kioskTierRepairer: \.tierRepairer, .kioskTierRecycler: \.tierRecycler,
        .kioskTierUpstream: \.tierUpstream, .kioskTierAuthority: \.tierAuthority,
    ]

    /// The standard words by language and id, which a `texts` file's alerts may not repeat (`SentenceGuard`).
    static let defaultsByLanguage: [String: [SentenceID: String]] = [
        "en": fieldsByID.mapValues { english[keyPath: $0] }, "fr": fieldsByID.mapValues { french[keyPath: $0] },
    ]

    /// These words with the file's in their place.
    public func replacing(_ sentences: [SentenceID: String]) -> KioskWords {
        var words = self
        for (id, sentence) in sentences {
            if let field = Self.fieldsByID[id] { words[keyPath: field] = sentence }
        }
        return words
    }

    /// The script's `words`, as JSON that cannot end the script element (`<` written `\u003c`).
    var scriptValue: String {
        let tiers: JSON = .object([
            ("public", .string(tierPublic)), ("end_user", .string(tierEndUser)), ("repairer", .string(tierRepairer)),
            ("recycler", .string(tierRecycler)), ("upstream", .string(tierUpstream)), ("authority", .string(tierAuthority)),
        ])
        let value: JSON = .object([
            ("idle", .string(idle)), ("idleHint", .string(idleHint)), ("offline", .string(offline)), ("offlineHint", .string(offlineHint)),
            ("sealOpened", .string(sealOpened)), ("sealOpenedDegraded", .string(sealOpenedDegraded)),
            ("theft", .string(theft)), ("scanArea", .string(scanArea)), ("tierServed", .string(tierServed)),
            ("certificateHint", .string(certificateHint)), ("certificateCode", .string(certificateCode)),
            ("aboutNamedItem", .string(aboutNamedItem)), ("historyLabel", .string(historyLabel)),
            ("parts", .object([("proof", .string(partProof)), ("certificate", .string(partCertificate)), ("history", .string(partHistory))])),
            ("tiers", tiers),
        ])
        return value.encoded().replacingScalars(["<": "\\u003c", "\u{2028}": "\\u2028", "\u{2029}": "\\u2029"])
    }
}
