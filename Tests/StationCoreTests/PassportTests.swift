import Foundation
import JSONCore
import SealTrustKit
import Sentences
@testable import StationCore
import StationWire
import Testing
import VerdictSocket

/// `passport` in process: what the core reads for a product, and the seed's rules in its answer.
@Suite struct PassportTests {
    let client = ClientID(rawValue: 3)
    static let item = "0x0042"
    static let gtin = "03701234567890"
    static let english = ScreenTexts.english

    static func passport(tier: String = "public") -> StandInAPI.Reply {
        .passport(Passport(identifier: item, accessTier: tier, productName: "Chronograph 42", brand: "Maison Exemple",
                           gtin: gtin, fields: ["product_name": "Chronograph 42", "model": "C42"]))
    }

    static func proof(_ anchoring: AnchoringState) -> StandInAPI.Reply {
        .proof(ProofBundle(dataHash: "abc", ipfsURI: "ipfs://bafy", anchoring: anchoring,
                           anchoringChain: anchoring == .none ? nil : "base", anchoringTxHash: nil,
                           credentialState: "valid", fields: [:]))
    }

    static func event(_ kind: String, _ at: String) -> HistoryEvent {
        let instant = try! Date(at, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: at.contains(".")).timeZone(separator: .omitted))
        return HistoryEvent(kind: kind, at: instant, fields: ["kind": .string(kind), "at": .string(at)])
    }

    /// A stand-in that knows the item behind the printed serial SN-00042, its three other reads, and one model.
    static func api(anchoring: AnchoringState = .anchored, tier: String = "public") -> StandInAPI {
        let api = StandInAPI()
        api.answer("SN-00042", with: passport(tier: tier))
        api.answer(item, with: passport(tier: tier))
        api.answer("proof:\(item)", with: proof(anchoring))
        api.answer("certificate:\(item)", with: .certificate(Certificate(
            identifier: item, productName: nil, brand: nil, issuedAt: "2024-11-02T08:15:00Z", status: "valid", fields: [:])))
        api.answer("history:\(item)", with: .history([
            event("repair_logged", "2025-09-14T16:45:12.250Z"), event("ownership_transfer", "2025-06-01T08:30:00Z"),
            event("minted", "2024-11-02T07:15:00Z"),
        ]))
        api.answer(gtin, with: .passport(Passport(identifier: nil, accessTier: nil, productName: "Chronograph 42",
                                                  brand: "Maison Exemple", gtin: gtin, fields: [:])))
        api.answer("proof:\(gtin)", with: proof(.modifiedAfterAnchoring))
        return api
    }

    /// Asks the core and returns the answer the client alone gets: at once, or later from a read's thread.
    func ask(_ rig: CoreRig, _ events: inout PublishedEvents, _ query: PassportQuery, id: String = "p") async throws -> JSON {
        if let answer = rig.core.passport(query, requestID: .string(id), from: client) { return answer }
        return try await events.next { $0["id"] == .string(id) }
    }

    /// Verifies the printed serial, then asks for its scan's product.
    func askAfterScan(_ rig: CoreRig, _ events: inout PublishedEvents, tier: AccessTier? = nil) async throws -> JSON {
        rig.core.verify(raw: "https://sealtrust.io/p/SN-00042", requestID: nil, from: client)
        let (_, verdict) = try await events.scanAndVerdict()
        #expect(verdict["outcome"] == "identified")
        return try await ask(rig, &events, PassportQuery(subject: .scan(id: verdict["scan_id"]?.stringValue ?? ""), tier: tier))
    }

    @Test func aScansProductComesWithItsProofCertificateAndHistoryNewestFirst() async throws {
        let api = Self.api()
        let answer = try await CoreRig.run(api: api) { rig, events in try await askAfterScan(rig, &events) }
        #expect(answer["type"] == "passport")
        #expect(answer["identifier"] == .string(Self.item))
        #expect(answer["requested_tier"] == "public" && answer["access_tier"] == "public")
        #expect(answer["product_name"] == "Chronograph 42" && answer["brand"] == "Maison Exemple")
        #expect(answer["fields"]?["model"] == "C42")
        #expect(answer["proof"]?["anchoring"] == "anchored" && answer["proof"]?["message"] == "Anchored on Base.")
        #expect(answer["certificate"]?["status"] == "valid" && answer["certificate"]?["message"] == "Certificate of authenticity: valid.")
        #expect(answer["verdict"] == "identified" && answer["about"] == "named_item")
        #expect(answer["certificate"]?["pdf_url"] == nil, "a printed code never hands over the named item's certificate to keep")
        #expect(answer["warnings"] == .array([.object([("kind", "named_item_only"), ("message", .string(Self.english.namedItemOnly))])]))
        let history = answer["history"]?.arrayValue ?? []
        #expect(history.map { $0["kind"] } == ["repair_logged", "ownership_transfer", "minted"])
        #expect(history.first?["at"] == "2025-09-14T16:45:12.250Z", "as the server wrote it")
        #expect(history.first?["message"] == "Recorded in the product's history as \u{201C}repair logged\u{201D}.", "a kind the station does not know")
        #expect(history.last?["message"] == "Registered by its brand.")
        #expect(answer["message"] == .string(Self.english.passportNotice))
        // The scan's call by the serial, then the four reads by the identifier; the PDF is never fetched.
        #expect(api.calls == ["SN-00042", Self.item, "proof:\(Self.item)", "certificate:\(Self.item)", "history:\(Self.item)"])
    }

    @Test(arguments: [
        (AnchoringState.anchored, "Anchored on Base."),
        (.neverAnchored, english.neverAnchored),
        (.modifiedAfterAnchoring, english.modifiedAfterAnchoring),
        (.none, "No information about anchoring."),
    ])
    func eachAnchoringStateHasTheSeedsSentence(state: AnchoringState, sentence: String) async throws {
        let answer = try await CoreRig.run(api: Self.api(anchoring: state)) { rig, events in
            try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item), parts: [.proof]))
        }
        #expect(answer["proof"]?["anchoring"] == .string(state.rawValue))
        #expect(answer["proof"]?["message"] == .string(sentence))
        #expect(!answer.encoded().lowercased().contains("not anchored"))
        #expect(answer["product_name"] == nil && answer["history"] == nil, "only the parts asked")
    }

    @Test func theTierServedIsShownAsServed() async throws {
        let answer = try await CoreRig.run(api: Self.api(tier: "end_user")) { rig, events in
            try await askAfterScan(rig, &events)
        }
        #expect(answer["requested_tier"] == "public")
        #expect(answer["access_tier"] == "end_user")
    }

    @Test func aPartThatFailsSaysSoAndTheOthersStillCome() async throws {
        let api = Self.api()
        api.answer("history:\(Self.item)", with: .failure(.tooManyCalls(retryAfterSeconds: 30)))
        api.answer("certificate:\(Self.item)", with: .failure(.api(status: 404, detail: "CERTIFICATE_NOT_FOUND", code: "CERTIFICATE_NOT_FOUND", retryAfterSeconds: nil)))
        let (first, second) = try await CoreRig.run(api: api) { rig, events in
            (try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item)), id: "1"),
             try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item)), id: "2"))
        }
        for answer in [first, second] {
            #expect(answer["history"]?["outcome"] == "too_many_calls")
            #expect(answer["history"]?["retry_after_s"] == 30)
            #expect(answer["history"]?["message"] == "Too many requests right now: this part will be back in 30 seconds.")
            #expect(answer["certificate"]?["outcome"] == "not_found")
            #expect(answer["certificate"]?["error"]?["http_status"] == 404)
            #expect(answer["certificate"]?["message"] == .string(Self.english.certificateNotIssued))
            #expect(answer["certificate"]?["pdf_url"] == nil, "no certificate, no address for one")
            #expect(answer["product_name"] == "Chronograph 42" && answer["proof"]?["anchoring"] == "anchored")
        }
        #expect(api.calls.filter { $0 == Self.item }.count == 2, "an answer with a failed part is not kept")
    }

    @Test func aWholeAnswerIsKeptForAMinute() async throws {
        let api = Self.api()
        let (first, second) = try await CoreRig.run(api: api) { rig, events in
            (try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item)), id: "1"),
             try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item)), id: "2"))
        }
        #expect(first["product_name"] == second["product_name"] && second["id"] == "2")
        #expect(api.calls.count == 4, "the second question cost no call: \(api.calls)")
    }

    @Test func anUnknownPassportIsNotFoundAndCostsOneCall() async throws {
        let api = Self.api()
        let answer = try await CoreRig.run(api: api) { rig, events in
            try await ask(rig, &events, PassportQuery(subject: .identifier("0xdead")))
        }
        #expect(answer["type"] == "passport" && answer["outcome"] == "not_found")
        #expect(answer["message"] == .string(Self.english.passportNotFound), "a part's failure, never the verdict's sentence")
        #expect(answer["proof"] == nil && answer["history"] == nil)
        #expect(api.calls == ["0xdead"])
    }

    @Test func aTierNotOpenIsNotAuthorizedAndThePublicPartsStillCome() async throws {
        let api = Self.api()
        api.answer(Self.item, with: .failure(.api(status: 403, detail: "TIER_FORBIDDEN", code: "TIER_FORBIDDEN", retryAfterSeconds: nil)))
        let answer = try await CoreRig.run(api: api) { rig, events in
            try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item), tier: .repairer))
        }
        #expect(answer["outcome"] == "not_authorized" && answer["requested_tier"] == "repairer")
        #expect(answer["message"] == .string(Self.english.passportTierNotOpen))
        #expect(answer["error"]?["http_status"] == 403)
        #expect(answer["proof"]?["anchoring"] == "anchored" && answer["certificate"]?["status"] == "valid")
    }

    @Test func aReferenceGivesTheModelAndNothingAboutAnObject() async throws {
        let api = Self.api()
        let answer = try await CoreRig.run(api: api) { rig, events in
            try await ask(rig, &events, PassportQuery(subject: .gtin(Self.gtin)))
        }
        #expect(answer["gtin"] == .string(Self.gtin) && answer["product_name"] == "Chronograph 42")
        #expect(answer["requested_tier"] == nil && answer["certificate"] == nil && answer["history"] == nil)
        #expect(answer["proof"]?["message"] == .string(Self.english.modifiedAfterAnchoring))
        #expect(answer["message"] == .string(Self.english.productReferenceNotice))
        #expect(api.calls == [Self.gtin, "proof:\(Self.gtin)"])
    }

    @Test func aScanForgottenOrWithoutAProductIsNotAvailable() async throws {
        let api = Self.api()
        let (unknown, foreign) = try await CoreRig.run(api: api) { rig, events in
            let unknown = try await ask(rig, &events, PassportQuery(subject: .scan(id: "s-unknown")), id: "1")
            rig.core.verify(raw: "plain text", requestID: nil, from: client)
            let (_, verdict) = try await events.scanAndVerdict()
            let foreign = try await ask(rig, &events, PassportQuery(subject: .scan(id: verdict["scan_id"]?.stringValue ?? "")), id: "2")
            return (unknown, foreign)
        }
        for answer in [unknown, foreign] {
            #expect(answer["type"] == "error" && answer["code"] == "not_available")
        }
        #expect(api.calls.isEmpty)
    }

    @Test func theLast1024ProductsAreRemembered() {
        var memory = ProductMemory()
        for index in 0..<(ProductMemory.capacity + 10) {
            memory.remember(ProductContext(query: .item(identifier: "0x\(index)")), ofScan: "s-\(index)")
        }
        #expect(memory.product(ofScan: "s-9") == nil)
        #expect(memory.product(ofScan: "s-10")?.subject == .item(identifier: "0x10"))
        #expect(memory.product(ofScan: "s-\(ProductMemory.capacity + 9)")?.subject == .item(identifier: "0x\(ProductMemory.capacity + 9)"))
    }

    @Test func aFrenchStationAnswersInFrench() async throws {
        let answer = try await CoreRig.run(api: Self.api(anchoring: .none), adjusting: { $0.language = .fr }) { rig, events in
            try await ask(rig, &events, PassportQuery(subject: .identifier(Self.item)))
        }
        #expect(answer["proof"]?["message"] == "Aucune information sur l'ancrage.")
        #expect(answer["message"] == .string(ScreenTexts.french.passportNotice))
        #expect(answer["history"]?.arrayValue?.last?["message"] == "Enregistré par sa marque.")
    }
}
