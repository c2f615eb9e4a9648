import FoundationEssentials
import JSONCore
import NFCReader
@testable import SealTrustKit
import Sentences
@testable import StationCore
import StationWire
import Testing
import TestSupport

/// The station's half of the buyer's screen, row by row of `BuyerScreenTable`: the reader's signal for the verdict,
/// and the `warnings` and certificate address of the passport answer for the verdicts that name a product.
struct BuyerScreenTableTests {
    static let signals: [ReaderSignal: String] = [.accepted: "accepted", .informational: "informational", .alarm: "alarm", .caution: "caution"]
    static let identifier = "0x0042"
    static let publicBase = URL(string: "https://api.sealtrust.io")!

    static func verdict(_ row: BuyerScreenTable.Row) throws -> VerdictEvent {
        var verdict = VerdictEvent(scanID: "s-1", source: "manual", medium: .manual,
                                   outcome: try #require(Outcome(rawValue: row.outcome)), message: "")
        verdict.theftReported = row.theftFlag
        verdict.seal = try row.seal.map { seal in
            VerdictEvent.Seal(status: try #require(.init(rawValue: seal.status)), policy: try #require(.init(rawValue: seal.policy)))
        }
        verdict.identifier = identifier
        return verdict
    }

    /// What the API answered for the row's product.
    static func reads(_ row: BuyerScreenTable.Row) -> PassportReads {
        var reads = PassportReads()
        reads.passport = .success(Passport(identifier: identifier, accessTier: "public", productName: "Chronograph 42",
                                           brand: "Maison Exemple", gtin: nil, fields: [:]))
        reads.proof = .success(ProofBundle(dataHash: nil, ipfsURI: nil, anchoring: .anchored, anchoringChain: "base",
                                           anchoringTxHash: nil, credentialState: nil, fields: [:]))
        if let status = row.certificateStatus {
            reads.certificate = .success(Certificate(identifier: identifier, productName: nil, brand: nil, issuedAt: nil,
                                                     status: status, fields: [:]))
            reads.certificateIdentifier = identifier
        }
        var history = [HistoryEvent(kind: "minted", at: Date(timeIntervalSince1970: 1_700_000_000), fields: [:])]
        if row.historyTheft {
            history.insert(HistoryEvent(kind: "theft_reported", at: Date(timeIntervalSince1970: 1_750_000_000), fields: [:]), at: 0)
        }
        reads.history = .success(history)
        return reads
    }

    @Test func everyRowsSignalWarningsAndCertificateAreTheSpecs() throws {
        let rows = BuyerScreenTable.rows
        #expect(rows.count == 11 * 3 * 4 * 9 * 2)
        for row in rows {
            let verdict = try Self.verdict(row)
            #expect(Self.signals[ReaderSignal(verdict)] == row.signal, "\(row)")
            let code: ScannedCode? = switch row.outcome {
            case "identified": ScannedCode(raw: "https://sealtrust.io/p/SN-00042", extraHosts: [])
            default: ScannedCode(raw: StationCoreTests.chipURL(1), extraHosts: [])
            }
            guard row.outcome == "authentic" || row.outcome == "identified" else { continue }
            let product = try #require(ProductContext(verdict: verdict, code: code))
            let reads = Self.reads(row)
            #expect(ItemWarning.of(product, reads: reads).map(\.rawValue) == row.warnings, "\(row)")
            let answer = JSON.object(PassportAnswer.fields(of: product, requestedTier: .public, reads: reads, texts: .english,
                                                           publicBase: Self.publicBase))
            let offered = answer["certificate"]?["pdf_url"] != nil
            // The daemon offers a certificate to keep under a genuine chip whose certificate is valid; the page shows
            // none under a theft report, from whatever source, as the table's `certificateCode` says.
            #expect(offered == (row.outcome == "authentic" && row.certificateStatus == "valid"), "\(row)")
            #expect(!offered || row.certificateCode || !row.panel, "\(row)")
            let messages = answer["warnings"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            #expect(messages.count == row.warnings.count && messages.allSatisfy { !$0.isEmpty }, "\(row)")
            if row.warnings.contains("certificate_not_valid") {
                #expect(answer["certificate"]?["message"] != .string(ScreenTexts.english.certificateValid), "never shown as valid: \(row)")
            }
        }
    }

    @Test func aTheftReportClosedLaterIsNoLongerOpen() {
        let product = ProductContext(query: .item(identifier: Self.identifier))
        var reads = PassportReads()
        reads.history = .success([
            HistoryEvent(kind: "theft_report_closed", at: Date(timeIntervalSince1970: 1_760_000_000), fields: [:]),
            HistoryEvent(kind: "theft_reported", at: Date(timeIntervalSince1970: 1_750_000_000), fields: [:]),
        ])
        #expect(ItemWarning.of(product, reads: reads) == [.namedItemOnly])
        reads.history = .success(Array((try? reads.history?.get().reversed()) ?? []))
        #expect(ItemWarning.of(product, reads: reads) == [.theftReported, .namedItemOnly], "reported again after it was closed")
        reads.history = nil
        reads.passport = .success(Passport(identifier: nil, accessTier: nil, productName: nil, brand: nil, gtin: nil,
                                           fields: ["theft_reported": .bool(true)]))
        #expect(ItemWarning.of(product, reads: reads).first == .theftReported, "the passport's own flag")
    }

    @Test func certificateStatusesAreReadForWhatTheySay() {
        let texts = ScreenTexts.english
        #expect(texts.certificateText(status: "valid") == texts.certificateValid)
        for status in ["revoked", "Revoked", "REVOKED"] { #expect(texts.certificateText(status: status) == texts.certificateRevoked) }
        #expect(texts.certificateText(status: "suspended") == texts.certificateSuspended)
        #expect(texts.certificateText(status: "expired") == texts.certificateExpired)
        for status in ["Valid", "VALID", "archived", "", nil] as [String?] {
            #expect(texts.certificateText(status: status) == texts.certificateOtherStatus, "\(status ?? "nil")")
            #expect(!ScreenTexts.certificateIsValid(status: status))
        }
        #expect(!texts.certificateOtherStatus.lowercased().contains("was issued"), "never reads as a valid certificate")
    }

    /// A proof whose optional fields are odd (a numeric chain) still carries its anchoring state: the one warning
    /// anchoring exists for is never lost to a field nobody shows.
    @Test func anOddOptionalFieldNeverHidesTheAnchoringState() throws {
        let body = #"{"data_hash": 42, "anchoring": {"state": "modified_after_anchoring", "chain": 8453, "tx_hash": ["0x1"]}, "credential": "valid"}"#
        let proof = try APIContract.proofBundle(JSON.parse(utf8: Array(body.utf8)))
        #expect(proof.anchoring == .modifiedAfterAnchoring && proof.anchoringChain == nil && proof.dataHash == nil)
        var reads = PassportReads()
        reads.proof = .success(proof)
        #expect(ItemWarning.of(ProductContext(query: .item(identifier: "0x1")), reads: reads).contains(.modifiedAfterAnchoring))
    }

    @Test func theWaitIsSaidAsItIs() {
        let texts = ScreenTexts.english
        #expect(texts.tooManyCalls(wait: nil) == "Too many checks right now. Please try again in a moment.")
        #expect(texts.tooManyCalls(wait: 1) == "Too many checks right now. Please try again in a moment.")
        #expect(texts.tooManyCalls(wait: 30) == "Too many checks right now. Please try again in 30 seconds.")
        #expect(texts.tooManyCalls(wait: 3_600) == "Too many checks right now. Please try again in 60 minutes.")
        #expect(texts.tooManyCalls(wait: 121) == "Too many checks right now. Please try again in 3 minutes.", "rounded up, never shorter")
        #expect(ScreenTexts.french.tooManyCalls(wait: 45) == "Trop de vérifications en ce moment. Réessayez dans 45\u{A0}secondes.")
    }
}
