import FoundationEssentials
import SealTrustKit
import StationWire

/// The SealTrust API as the station calls it. Each call blocks the calling thread (one of the core's call threads) on
/// the network and hands the answer over on that thread, before the client opens its next connection. The daemon's
/// is `SealTrustClient`; the core's tests use an in-process stand-in.
public protocol StationAPI: Sendable {
    /// Sends the chip URL once, exactly as scanned; never retried.
    func verifyScan(_ proof: ChipProof, latitude: Double?, longitude: Double?,
                    answeredOnThisThread answered: (Result<ScanVerification, any Error>) -> Void)
    /// Whether the API can be reached, presenting nothing (a connection opens); nil when it can. Blocks up to `timeout`.
    func reachable(within timeout: Duration) -> SealTrustError?
    /// `purpose`: a printed code's verdict, or a product read, which leaves the verdicts their share of the API's limit.
    func passport(identifier: String, tier: AccessTier, for purpose: CallPurpose, answeredOnThisThread answered: (Result<Passport, any Error>) -> Void)
    func referencePassport(gtin: String, for purpose: CallPurpose, answeredOnThisThread answered: (Result<Passport, any Error>) -> Void)
    func passportProof(identifier: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void)
    func referencePassportProof(gtin: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void)
    func certificate(identifier: String, answeredOnThisThread answered: (Result<Certificate, any Error>) -> Void)
    /// Newest first.
    func history(identifier: String, answeredOnThisThread answered: (Result<[HistoryEvent], any Error>) -> Void)
}

extension SealTrustClient: StationAPI {}
