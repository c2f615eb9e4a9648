import FoundationEssentials
import JSONCore
import StationWire

/// A typed client of the SealTrust API (sealtrust-api.md). Every call is a
/// network call; none is retried once it may have changed something on the server.
public final class SealTrustClient: Sendable {
    public let configuration: SealTrustConfiguration
    private let transport: APITransport

    public init(configuration: SealTrustConfiguration) {
        self.configuration = configuration
        transport = APITransport(configuration: configuration)
    }

    /// The last call that failed on the network, on its answer's shape or on a server error, with its time.
    public var lastFailure: APIFailureRecord? { transport.lastFailure }

    /// Sends `proof.url` exactly as scanned; coordinates only when both are given.
    /// Never retried: a second presentation of the same URL is a replay.
    public func verifyScan(_ proof: ChipProof, latitude: Double? = nil, longitude: Double? = nil) async throws -> ScanVerification {
        try APIContract.scanVerification(
            await transport.send(APIContract.verifyScan(url: proof.url, latitude: latitude, longitude: longitude))
        )
    }

    /// Fails with `invalidScanAddress`, sending nothing, unless `url` is a chip link with a usable proof.
    public func verifyScan(url: String, latitude: Double? = nil, longitude: Double? = nil) async throws -> ScanVerification {
        guard case .chip(let proof) = ScanURL.read(url, extraHosts: configuration.extraHosts) else {
            throw SealTrustError.invalidScanAddress
        }
        return try await verifyScan(proof, latitude: latitude, longitude: longitude)
    }

    /// Carries the token when there is one: a signed-in owner's read is widened.
    public func passport(identifier: String, tier: AccessTier = .public) async throws -> Passport {
        try APIContract.passport(await transport.send(APIContract.passport(identifier: identifier, tier: tier)))
    }

    public func passportProof(identifier: String) async throws -> ProofBundle {
        try APIContract.proofBundle(await transport.send(APIContract.passportProof(identifier: identifier)))
    }

    /// A model's passport: proves nothing about the object in hand.
    public func referencePassport(gtin: String) async throws -> Passport {
        try APIContract.passport(await transport.send(APIContract.referencePassport(gtin: gtin)))
    }

    public func referencePassportProof(gtin: String) async throws -> ProofBundle {
        try APIContract.proofBundle(await transport.send(APIContract.referencePassportProof(gtin: gtin)))
    }

    public func certificate(identifier: String) async throws -> Certificate {
        try APIContract.certificate(await transport.send(APIContract.certificate(identifier: identifier)))
    }

    /// Built, nothing called: the buyer's phone fetches it, from the API's public address (`base`), which is not the
    /// station's when the station reaches the API through a relay.
    public static func certificatePDFURL(identifier: String, base: URL) -> URL {
        APITransport.url(APIContract.certificatePDFPath(identifier: identifier), base: base)
    }

    /// Newest first, whatever order the server sent.
    public func history(identifier: String) async throws -> [HistoryEvent] {
        Self.newestFirst(try APIContract.historyEvents(await transport.send(APIContract.history(identifier: identifier))))
    }

    /// By instant, newest first; events of the same instant keep the server's order.
    private static func newestFirst(_ events: [HistoryEvent]) -> [HistoryEvent] {
        events.enumerated()
            .sorted { $0.element.at != $1.element.at ? $0.element.at > $1.element.at : $0.offset < $1.offset }
            .map(\.element)
    }

    /// From a chip read; the URL is sent unchanged and never retried (it is consumed like a scan).
    public func requestClaimTicket(for proof: ChipProof) async throws -> ClaimTicketResponse {
        try APIContract.claimTicketResponse(await transport.send(APIContract.claimTicket(url: proof.url)))
    }

    /// From a printed serial, as printed; needs a signed-in user.
    public func requestClaimTicket(serial: String) async throws -> ClaimTicketResponse {
        try APIContract.claimTicketResponse(await transport.send(APIContract.claimTicket(serial: serial)))
    }

    /// Needs a signed-in user; never retried. A 502 `TRANSFER_SENT_PENDING` means the
    /// transfer was broadcast: show "come back in a moment", never a retry.
    public func completeClaim(_ ticket: ClaimTicket, purchaseCode: String? = nil) async throws -> ClaimCompletion {
        try APIContract.claimCompletion(await transport.send(
            APIContract.completeClaim(ticketID: ticket.id, nonce: ticket.nonce, purchaseCode: purchaseCode)
        ))
    }

    /// Needs a signed-in user; the state is an open string.
    public func claimState(ticketID: String) async throws -> ClaimState {
        try APIContract.claimState(await transport.send(APIContract.claimState(ticketID: ticketID)))
    }

    // MARK: On the caller's own thread

    /// `verifyScan`, on the calling thread, which it blocks on the network: for a caller that runs each call on a thread
    /// of its own and goes on there with the answer. The daemon journals and publishes a verdict this way, with no
    /// hand-off between threads after the answer. Never retried.
    public func verifyScan(_ proof: ChipProof, latitude: Double? = nil, longitude: Double? = nil,
                           answeredOnThisThread answered: (Result<ScanVerification, any Error>) -> Void) {
        send(APIContract.verifyScan(url: proof.url, latitude: latitude, longitude: longitude), for: .verdict,
             decoding: APIContract.scanVerification, answered)
    }

    /// `passport`, on the calling thread, as `verifyScan(_:latitude:longitude:answeredOnThisThread:)`; `purpose`: a
    /// printed code's verdict, or a product read (which leaves the verdicts their share of the bucket).
    public func passport(identifier: String, tier: AccessTier = .public, for purpose: CallPurpose,
                         answeredOnThisThread answered: (Result<Passport, any Error>) -> Void) {
        send(APIContract.passport(identifier: identifier, tier: tier), for: purpose, decoding: APIContract.passport, answered)
    }

    /// `referencePassport`, on the calling thread, as `passport(identifier:tier:for:answeredOnThisThread:)`.
    public func referencePassport(gtin: String, for purpose: CallPurpose, answeredOnThisThread answered: (Result<Passport, any Error>) -> Void) {
        send(APIContract.referencePassport(gtin: gtin), for: purpose, decoding: APIContract.passport, answered)
    }

    /// `passportProof`, on the calling thread: a product read.
    public func passportProof(identifier: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void) {
        send(APIContract.passportProof(identifier: identifier), for: .productRead, decoding: APIContract.proofBundle, answered)
    }

    /// `referencePassportProof`, on the calling thread: a product read.
    public func referencePassportProof(gtin: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void) {
        send(APIContract.referencePassportProof(gtin: gtin), for: .productRead, decoding: APIContract.proofBundle, answered)
    }

    /// Whether the API can be reached now, on the calling thread, which it blocks up to `timeout`: a connection opens
    /// (a proxy's tunnel and TLS included), and nothing is sent on it, so no proof and no request is spent. Nil when
    /// it can; the transport failure when it cannot.
    public func reachable(within timeout: Duration) -> SealTrustError? {
        transport.reachable(within: timeout)
    }

    /// `certificate`, on the calling thread, as `verifyScan(_:latitude:longitude:answeredOnThisThread:)`.
    public func certificate(identifier: String, answeredOnThisThread answered: (Result<Certificate, any Error>) -> Void) {
        send(APIContract.certificate(identifier: identifier), for: .productRead, decoding: APIContract.certificate, answered)
    }

    /// `history`, newest first, on the calling thread, as `verifyScan(_:latitude:longitude:answeredOnThisThread:)`.
    public func history(identifier: String, answeredOnThisThread answered: (Result<[HistoryEvent], any Error>) -> Void) {
        send(APIContract.history(identifier: identifier), for: .productRead, decoding: { Self.newestFirst(try APIContract.historyEvents($0)) }, answered)
    }

    /// `request` on the calling thread, its answer decoded and handed to `answered` there.
    private func send<Value>(_ request: APIContract.Request, for purpose: CallPurpose, decoding decode: (JSON) throws -> Value,
                             _ answered: (Result<Value, any Error>) -> Void) {
        var request = request
        request.purpose = purpose
        transport.send(request) { outcome in
            answered(Result { try decode(outcome.get()) })
        }
    }
}
