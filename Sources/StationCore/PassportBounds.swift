import FoundationEssentials
import JSONCore
import SealTrustKit

/// What a `passport` answer keeps of the API's answers: memory bounded by the bytes kept, not by the JSON's shape (a
/// field of half a million zeros parses to tens of megabytes), and an answer that always fits a line a client of
/// the socket accepts (`ServerLine.longestBytes`).
enum PassportBounds {
    /// History entries kept, newest first: the page shows 5, scanctl a few dozen.
    static let historyEntries = 50
    /// A passport field whose value is larger than this, encoded, is left out.
    static let fieldBytes = 8 * 1024
    /// The passport's fields together.
    static let fieldsBytes = 64 * 1024
    /// A name, a status or a time the API gives, cut to this many bytes (on a character's boundary).
    static let textBytes = 1_024
}

extension PassportReads {
    /// These reads with what an answer shows and no more; what was left out is counted, and an open theft report is
    /// read from the whole history first, so that no bound ever hides it.
    func bounded() -> PassportReads {
        var bounded = self
        bounded.passport = passport?.map(Self.bounded)
        bounded.proof = proof?.map { proof in
            ProofBundle(dataHash: Self.cut(proof.dataHash), ipfsURI: Self.cut(proof.ipfsURI), anchoring: proof.anchoring,
                        anchoringChain: Self.cut(proof.anchoringChain), anchoringTxHash: Self.cut(proof.anchoringTxHash),
                        credentialState: Self.cut(proof.credentialState), fields: [:])
        }
        bounded.certificate = certificate?.map { certificate in
            Certificate(identifier: Self.cut(certificate.identifier), productName: Self.cut(certificate.productName),
                        brand: Self.cut(certificate.brand), issuedAt: Self.cut(certificate.issuedAt),
                        status: Self.cut(certificate.status), fields: [:])
        }
        if case .success(let events)? = history {
            bounded.historyTheftOpen = ItemWarning.theftOpen(in: events)
            bounded.historyLeftOut = max(0, events.count - PassportBounds.historyEntries)
            bounded.history = .success(events.prefix(PassportBounds.historyEntries).map { event in
                HistoryEvent(kind: Self.cut(event.kind) ?? "", at: event.at,
                             fields: event.fields["at"].flatMap { $0.stringValue.flatMap(Self.cut) }.map { ["at": .string($0)] } ?? [:])
            })
        }
        if case .success(let passport)? = passport {
            bounded.fieldsLeftOut = passport.fields.count - ((try? bounded.passport?.get())?.fields.count ?? 0)
        }
        return bounded
    }

    /// The bytes these reads keep, about: what the cache counts against its bound.
    var keptBytes: Int {
        let fields = (try? passport?.get())?.fields.reduce(0) { $0 + $1.key.utf8.count + Self.encodedSize($1.value) } ?? 0
        let history = ((try? history?.get()) ?? []).count * 256
        return 2_048 + fields + history
    }

    private static func bounded(_ passport: Passport) -> Passport {
        var kept: [String: JSON] = [:]
        var total = 0
        for (key, value) in passport.fields.sorted(by: { $0.key < $1.key }) {
            let size = key.utf8.count + encodedSize(value)
            guard size <= PassportBounds.fieldBytes, total + size <= PassportBounds.fieldsBytes else { continue }
            kept[key] = value
            total += size
        }
        return Passport(identifier: cut(passport.identifier), accessTier: cut(passport.accessTier), productName: cut(passport.productName),
                        brand: cut(passport.brand), gtin: cut(passport.gtin), fields: kept)
    }

    private static func encodedSize(_ value: JSON) -> Int {
        var bytes: [UInt8] = []
        value.encoded(into: &bytes)
        return bytes.count
    }

    /// `text` cut to `PassportBounds.textBytes`, whole characters only.
    private static func cut(_ text: String?) -> String? {
        guard let text, text.utf8.count > PassportBounds.textBytes else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= PassportBounds.textBytes else { break }
            kept.append(character)
        }
        return kept
    }
}
