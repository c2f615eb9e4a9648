import FoundationEssentials
import JSONCore
import StationWire

/// Everything that depends on the wire contract (sealtrust-api.md): paths,
/// methods, limits, who carries a token, request fields and answer fields.
/// A change on the real API touches this file only.
enum APIContract {
    /// The groups of endpoints that share one per-IP limit.
    enum Bucket: String, Sendable, Hashable, CaseIterable {
        case verify, ticket, passport, certificate, history, claim

        /// Calls per window (60 s on the server).
        var limit: Int {
            switch self {
            case .verify, .ticket, .history: 30
            case .passport, .certificate: 60
            case .claim: 20
            }
        }

        /// Slots of the window that product reads never take: a printed code's verdict reads the passport bucket too.
        var keptForVerdicts: Int {
            self == .passport ? 20 : 0
        }
    }

    enum Authorization: Sendable {
        /// Never sent.
        case never
        /// Sent when the provider has a token (passport reads).
        case whenAvailable
        /// Without a token the call fails locally and sends nothing.
        case required
    }

    struct Request: Sendable {
        let method: String
        /// Path and query, path parameters already percent-encoded.
        let pathAndQuery: String
        /// JSON text, sent as is.
        let body: String?
        let bucket: Bucket
        let authorization: Authorization
        var purpose = CallPurpose.verdict

        /// Only idempotent reads are retried; a POST may have reached the server.
        var isRetriable: Bool { method == "GET" }
    }

    // MARK: Requests

    static func verifyScan(url: String, latitude: Double?, longitude: Double?) -> Request {
        var members: [(String, JSON)] = [("url", .string(url))]
        if let latitude, let longitude, latitude.isFinite, longitude.isFinite {
            members += [("latitude", .double(latitude)), ("longitude", .double(longitude))]
        }
        return post("/scans/verify", members, bucket: .verify, authorization: .never)
    }

    static func passport(identifier: String, tier: AccessTier) -> Request {
        get("/passport/\(PathSegment.encode(identifier))?tier=\(tier.rawValue)", bucket: .passport, authorization: .whenAvailable)
    }

    static func passportProof(identifier: String) -> Request {
        get("/passport/\(PathSegment.encode(identifier))/proof", bucket: .passport, authorization: .never)
    }

    static func referencePassport(gtin: String) -> Request {
        get("/reference/\(PathSegment.encode(gtin))", bucket: .passport, authorization: .never)
    }

    static func referencePassportProof(gtin: String) -> Request {
        get("/reference/\(PathSegment.encode(gtin))/proof", bucket: .passport, authorization: .never)
    }

    static func certificate(identifier: String) -> Request {
        get("/certificate/\(PathSegment.encode(identifier))", bucket: .certificate, authorization: .never)
    }

    static func certificatePDFPath(identifier: String) -> String {
        "/certificate/\(PathSegment.encode(identifier)).pdf"
    }

    static func history(identifier: String) -> Request {
        get("/history/\(PathSegment.encode(identifier))", bucket: .history, authorization: .never)
    }

    static func claimTicket(url: String) -> Request {
        post("/claims/ticket", [("url", .string(url))], bucket: .ticket, authorization: .never)
    }

    static func claimTicket(serial: String) -> Request {
        post("/claims/from-serial", [("serial", .string(serial))], bucket: .claim, authorization: .required)
    }

    static func completeClaim(ticketID: String, nonce: String, purchaseCode: String?) -> Request {
        var members: [(String, JSON)] = [("ticket_id", .string(ticketID)), ("nonce", .string(nonce))]
        if let purchaseCode {
            members.append(("purchase_code", .string(purchaseCode)))
        }
        return post("/claims/complete", members, bucket: .claim, authorization: .required)
    }

    static func claimState(ticketID: String) -> Request {
        get("/claims/\(PathSegment.encode(ticketID))", bucket: .claim, authorization: .required)
    }

    private static func get(_ pathAndQuery: String, bucket: Bucket, authorization: Authorization) -> Request {
        Request(method: "GET", pathAndQuery: pathAndQuery, body: nil, bucket: bucket, authorization: authorization)
    }

    private static func post(_ path: String, _ members: [(String, JSON)], bucket: Bucket,
                             authorization: Authorization) -> Request {
        Request(method: "POST", pathAndQuery: path, body: JSON.object(members).encoded(), bucket: bucket, authorization: authorization)
    }

    // MARK: Headers

    static let acceptHeader = (name: "Accept", value: "application/json")
    static let contentTypeHeader = (name: "Content-Type", value: "application/json")
    static let clientHeader = "X-SealTrust-Client"
    static let authorizationHeader = "Authorization"
    static func bearer(_ token: String) -> String { "Bearer \(token)" }
    static let retryAfterHeader = "Retry-After"
    /// What a 429 without `Retry-After` means.
    static let defaultRetryAfterSeconds = 60
    /// The most values an answer may hold (each is a heap box once parsed): a history of 16,000 events has about
    /// 50,000; a list of half a million zeros, within the 1 MiB body limit, would cost tens of megabytes parsed.
    static let answerValueLimit = 100_000
    /// The longest a 429 is obeyed: an absurd `Retry-After` must not refuse every scan until a restart.
    static let longestRetryAfterSeconds = 3_600

    // MARK: Answers

    /// The `detail` of an error body `{"detail": ...}`; nil for any other body.
    static func errorDetail(_ body: JSON?) -> JSON? {
        body?["detail"]
    }

    static func scanVerification(_ answer: JSON) throws -> ScanVerification {
        let fields = try JSONFields(answer, context: "scan verification")
        let statusText = try fields.string("status")
        guard let status = ScanVerification.Status(rawValue: statusText) else {
            throw SealTrustError.decoding("scan verification: unknown status \"\(statusText)\"")
        }
        let area = try fields.optionalObject("scan_area")
        return ScanVerification(
            status: status,
            identifier: try fields.optionalString("identifier"),
            productName: try fields.optionalString("product_name"),
            brand: try fields.optionalString("brand"),
            gtin: try fields.optionalString("gtin"),
            tamperStatus: try fields.optionalString("tamper_status").flatMap(TamperStatus.init(rawValue:)),
            tamperPolicy: try fields.optionalString("tamper_policy").flatMap(TamperPolicy.init(rawValue:)) ?? .inform,
            theftReported: try fields.optionalBool("theft_reported") ?? false,
            scanArea: try area.map { ScanArea(city: try $0.optionalString("city"), country: try $0.optionalString("country")) }
        )
    }

    static func passport(_ answer: JSON) throws -> Passport {
        let fields = try JSONFields(answer, context: "passport")
        return Passport(
            identifier: try fields.optionalString("identifier"),
            accessTier: try fields.optionalString("access_tier"),
            productName: try fields.optionalString("product_name"),
            brand: try fields.optionalString("brand"),
            gtin: try fields.optionalString("gtin"),
            fields: fields.members
        )
    }

    /// Only the anchoring state has a rule; every other field is shown as text when it is text, and left out when
    /// it is not, so that no odd field hides the state (an anchoring block of another shape is no information).
    static func proofBundle(_ answer: JSON) throws -> ProofBundle {
        let fields = try JSONFields(answer, context: "proof bundle")
        let anchoring = fields.objectIfAny("anchoring")
        return ProofBundle(
            dataHash: fields.stringIfAny("data_hash"),
            ipfsURI: fields.stringIfAny("ipfs_uri"),
            anchoring: anchoring?.stringIfAny("state").flatMap(AnchoringState.init(rawValue:)) ?? AnchoringState.none,
            anchoringChain: anchoring?.stringIfAny("chain"),
            anchoringTxHash: anchoring?.stringIfAny("tx_hash"),
            credentialState: fields.objectIfAny("credential")?.stringIfAny("state"),
            fields: fields.members
        )
    }

    static func certificate(_ answer: JSON) throws -> Certificate {
        let fields = try JSONFields(answer, context: "certificate")
        return Certificate(
            identifier: try fields.optionalString("identifier"),
            productName: try fields.optionalString("product_name"),
            brand: try fields.optionalString("brand"),
            issuedAt: fields.stringIfAny("issued_at"),
            // A status of another type is no status: not valid, never a failed read that hides the certificate.
            status: fields.stringIfAny("status"),
            fields: fields.members
        )
    }

    /// The events as sent; the client orders them.
    static func historyEvents(_ answer: JSON) throws -> [HistoryEvent] {
        try JSONFields(answer, context: "history").array("events").map { element in
            let event = try JSONFields(element, context: "history event")
            let at = try event.string("at")
            guard let date = RFC3339.date(from: at) else {
                throw SealTrustError.decoding("history event: \"at\" is not an RFC 3339 time: \(at)")
            }
            return HistoryEvent(kind: try event.string("kind"), at: date, fields: event.members)
        }
    }

    static func claimTicketResponse(_ answer: JSON) throws -> ClaimTicketResponse {
        let fields = try JSONFields(answer, context: "claim ticket")
        let ticket = try fields.optionalObject("ticket").map {
            ClaimTicket(id: try $0.string("id"), nonce: try $0.string("nonce"), expiresAt: try $0.string("expires_at"))
        }
        return ClaimTicketResponse(ticket: ticket, detail: try fields.optionalString("detail"))
    }

    static func claimCompletion(_ answer: JSON) throws -> ClaimCompletion {
        let fields = try JSONFields(answer, context: "claim completion")
        return ClaimCompletion(txHash: try fields.optionalString("tx_hash"), state: try fields.optionalString("state"))
    }

    static func claimState(_ answer: JSON) throws -> ClaimState {
        let fields = try JSONFields(answer, context: "claim state")
        return ClaimState(id: try fields.optionalString("id"), state: try fields.string("state"))
    }
}
