import JSONCore
import Sentences

/// The page's words as the page takes them: by the page's language, and as the script's value.
extension KioskWords {
    public static func standard(_ language: KioskLanguage) -> KioskWords {
        language == .fr ? french : english
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
            ("aboutNamedItem", .string(aboutNamedItem)), ("historyLabel", .string(historyLabel)), ("late", .string(late)),
            ("parts", .object([("proof", .string(partProof)), ("certificate", .string(partCertificate)), ("history", .string(partHistory))])),
            ("tiers", tiers),
        ])
        return value.encoded().replacingScalars(["<": "\\u003c", "\u{2028}": "\\u2028", "\u{2029}": "\\u2029"])
    }
}
