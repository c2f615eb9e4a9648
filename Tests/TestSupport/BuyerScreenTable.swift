/// What a buyer is told for every verdict, theft flag, seal, certificate status and history: outputs.md's "What the
/// kiosk page shows" and daemon.md's "Feedback at the reader", written once as data. The station's rules (the
/// warnings, the reader's signal) and the page (its colour, icon, panel and certificate code) are each checked
/// against it; neither derives it from the code under test.
public enum BuyerScreenTable {
    /// One verdict's screen before anything else is known.
    public struct Base: Sendable {
        public let outcome: String
        public let tone: String
        public let icon: String
        public let signal: String
        /// The product panel may be shown (authentic without a theft report, identified).
        public let panel: Bool
    }

    public static let bases: [Base] = [
        Base(outcome: "authentic", tone: "good", icon: "\u{2713}", signal: "accepted", panel: true),
        Base(outcome: "identified", tone: "identified", icon: "\u{2139}\u{FE0E}", signal: "informational", panel: true),
        Base(outcome: "replay", tone: "alert", icon: "!", signal: "alarm", panel: false),
        Base(outcome: "invalid_signature", tone: "alert", icon: "!", signal: "alarm", panel: false),
        Base(outcome: "minting_in_progress", tone: "neutral", icon: "\u{2026}", signal: "caution", panel: false),
        Base(outcome: "never_registered", tone: "neutral", icon: "\u{2205}", signal: "caution", panel: false),
        Base(outcome: "unreadable_link", tone: "neutral", icon: "\u{21BA}", signal: "caution", panel: false),
        Base(outcome: "too_many_calls", tone: "unavailable", icon: "\u{21BB}", signal: "caution", panel: false),
        Base(outcome: "failure", tone: "unavailable", icon: "\u{21BB}", signal: "caution", panel: false),
        Base(outcome: "not_found", tone: "neutral", icon: "?", signal: "caution", panel: false),
        Base(outcome: "not_sealtrust", tone: "neutral", icon: "\u{2298}", signal: "caution", panel: false),
    ]

    /// The seal as a verdict carries it: none, or a status and the brand's policy.
    public static let seals: [(status: String, policy: String)?] = [nil, ("intact", "inform"), ("opened", "inform"), ("opened", "degrade")]
    /// The verdict's theft flag: absent (no answer), false, true.
    public static let theftFlags: [Bool?] = [nil, false, true]
    /// The certificate's status as the API gives it (an open string); nil: none read.
    public static let certificateStatuses: [String?] = [nil, "valid", "revoked", "Revoked", "REVOKED", "suspended", "expired", "archived", ""]

    /// One row: what the buyer must be told.
    public struct Row: Sendable, CustomStringConvertible {
        public let outcome: String
        public let theftFlag: Bool?
        public let seal: (status: String, policy: String)?
        public let certificateStatus: String?
        /// The history holds a theft report no later recovery closes.
        public let historyTheft: Bool
        public let tone: String
        public let icon: String
        public let signal: String
        public let panel: Bool
        /// A certificate code to keep is offered.
        public let certificateCode: Bool
        /// The passport answer's `warnings`, most serious first, when the verdict names a product.
        public let warnings: [String]

        public var description: String {
            "\(outcome) theft:\(theftFlag.map(String.init) ?? "-") seal:\(seal.map { "\($0.status)/\($0.policy)" } ?? "-") "
                + "certificate:\(certificateStatus ?? "-") history-theft:\(historyTheft)"
        }
    }

    /// Every combination, with the spec's rules applied in its words: a theft report from anywhere is the alert and
    /// shows no product; an opened seal under `degrade` is never the plain good screen or signal; a certificate is
    /// valid only when its status is `valid`, and one to keep is offered only under a chip's `authentic`; a printed
    /// code's record is the named item's.
    public static var rows: [Row] {
        var rows: [Row] = []
        for base in bases {
            for theftFlag in theftFlags {
                for seal in seals {
                    for certificateStatus in certificateStatuses {
                        for historyTheft in [false, true] {
                            let theft = theftFlag == true || historyTheft
                            let degraded = base.outcome == "authentic" && seal?.status == "opened" && seal?.policy == "degrade"
                            let certificateValid = certificateStatus == "valid"
                            var warnings: [String] = []
                            if theft { warnings.append("theft_reported") }
                            if certificateStatus != nil && !certificateValid { warnings.append("certificate_not_valid") }
                            if base.outcome == "identified" { warnings.append("named_item_only") }
                            let panel = base.panel && !theft && (base.outcome != "authentic" || theftFlag == false)
                            rows.append(Row(
                                outcome: base.outcome, theftFlag: theftFlag, seal: seal, certificateStatus: certificateStatus,
                                historyTheft: historyTheft,
                                tone: theft ? "alert" : base.tone,
                                icon: theft ? "!" : degraded ? "\u{26A0}\u{FE0E}" : base.icon,
                                signal: theftFlag == true ? "alarm" : degraded ? "informational" : base.signal,
                                panel: panel,
                                certificateCode: panel && base.outcome == "authentic" && certificateValid,
                                warnings: warnings))
                        }
                    }
                }
            }
        }
        return rows
    }
}
