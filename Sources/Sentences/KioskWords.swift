/// The page's own words, in a complete English and a complete French set; each replaced on its own by a `texts` file
/// (`--texts`, the daemon's file). The verdicts' and the product's sentences are the daemon's.
public struct KioskWords: SentenceSet, Equatable {
    public var title: String
    /// Shown before the script runs, and whenever the page is idle.
    public var idle: String
    public var idleHint: String
    public var offline: String
    public var offlineHint: String
    public var sealOpened: String
    public var sealOpenedDegraded: String
    public var theft: String
    /// Followed by the city and country of a `never_registered` scan.
    public var scanArea: String
    /// Followed by the tier served.
    public var tierServed: String
    public var certificateHint: String
    /// The certificate code's text alternative.
    public var certificateCode: String
    /// Under `identified`: the panel's record is the named item's, not the object's in hand.
    public var aboutNamedItem: String
    /// Above the product's history: the daemon's sentences alone do not say what the dated lines are.
    public var historyLabel: String
    /// Under a late verdict (a scan deferred through an API outage): an earlier scan's, not the item in hand's.
    public var late: String
    /// Before the sentence of a part the daemon could not read for now, which says only "this part".
    public var partProof: String
    public var partCertificate: String
    public var partHistory: String
    public var tierPublic: String
    public var tierEndUser: String
    public var tierRepairer: String
    public var tierRecycler: String
    public var tierUpstream: String
    public var tierAuthority: String

    public static let english = KioskWords(
        title: "SealTrust station", idle: "Tap a tag or show a code", idleHint: "Hold it close to the reader or the camera",
        offline: "Station offline", offlineHint: "The station will be back in a moment.",
        sealOpened: "Seal opened", sealOpenedDegraded: "Seal opened: the brand lowers the trust shown", theft: "Reported stolen",
        scanArea: "Scanned near ", tierServed: "Passport shown at the level: ",
        certificateHint: "Scan this code to keep the certificate on your phone.",
        certificateCode: "QR code of the certificate of authenticity",
        aboutNamedItem: "What the brand recorded about the item this code names, not about the object in hand:",
        historyLabel: "History, newest first:",
        late: "Checked now: a scan recorded earlier, while the service was away.",
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
        late: "Vérifié maintenant\u{A0}: un scan enregistré plus tôt, pendant l'absence du service.",
        partProof: "Preuve d'ancrage\u{A0}: ", partCertificate: "Certificat\u{A0}: ", partHistory: "Historique\u{A0}: ",
        tierPublic: "public", tierEndUser: "propriétaire", tierRepairer: "réparateur", tierRecycler: "recycleur",
        tierUpstream: "chaîne d'approvisionnement", tierAuthority: "autorité")

    /// Each word's id in a `texts` file.
    public static let fieldsByID: [SentenceID: WritableKeyPath<KioskWords, String> & Sendable] = [
        .kioskTitle: \.title, .kioskIdle: \.idle, .kioskIdleHint: \.idleHint, .kioskOffline: \.offline,
        .kioskOfflineHint: \.offlineHint, .kioskSealOpened: \.sealOpened,
        .kioskSealOpenedDegraded: \.sealOpenedDegraded, .kioskTheft: \.theft, .kioskScanArea: \.scanArea,
        .kioskTierServed: \.tierServed, .kioskCertificateHint: \.certificateHint,
        .kioskCertificateCode: \.certificateCode, .kioskAboutNamedItem: \.aboutNamedItem, .kioskHistoryLabel: \.historyLabel, .kioskLate: \.late,
        .kioskPartProof: \.partProof, .kioskPartCertificate: \.partCertificate, .kioskPartHistory: \.partHistory, .kioskTierPublic: \.tierPublic,
        .kioskTierEndUser: \.tierEndUser, .kioskTierRepairer: \.tierRepairer, .kioskTierRecycler: \.tierRecycler,
        .kioskTierUpstream: \.tierUpstream, .kioskTierAuthority: \.tierAuthority,
    ]
}
