import StationWire

/// What a chip scan comes to for the person holding the product: one of the eight chip outcomes of the socket
/// protocol's `Outcome`, with what travels beside it (seal, theft report, scan area, wait).
public struct ScanOutcome: Sendable, Hashable {
    public let verdict: Outcome
    public let verification: ScanVerification?
    public let error: SealTrustError?

    /// The seal as the brand wants it shown; nil when there is nothing to show
    /// (no seal information, a silent policy, or no authentic answer to attach it to).
    public var seal: SealDisplay? {
        guard verdict == .authentic, let verification else { return nil }
        return SealDisplay(status: verification.tamperStatus, policy: verification.tamperPolicy)
    }

    /// Nil when the server gave no answer to carry it.
    public var theftReported: Bool? { verification?.theftReported }

    public var scanArea: ScanArea? { verification?.scanArea }

    /// The seconds to wait, on `tooManyCalls`.
    public var retryAfterSeconds: Int? {
        verdict == .tooManyCalls ? error?.retryAfterSeconds : nil
    }

    public static func from(_ verification: ScanVerification) -> ScanOutcome {
        switch verification.status {
        case .authentic: ScanOutcome(verdict: .authentic, verification: verification, error: nil)
        case .invalidSignature: ScanOutcome(verdict: .invalidSignature, verification: verification, error: nil)
        }
    }

    /// The contract's table; an error that is not a `SealTrustError` (a cancellation) is a transport failure.
    public static func from(_ error: any Error) -> ScanOutcome {
        let failure = SealTrustError.from(error)
        return ScanOutcome(verdict: verdict(for: failure), verification: nil, error: failure)
    }

    private static func verdict(for failure: SealTrustError) -> Outcome {
        switch failure {
        case .invalidScanAddress:
            .unreadableLink
        case .tooManyCalls:
            .tooManyCalls
        case .api(409, _, "MINT_PENDING", _):
            .mintingInProgress
        case .api(409, _, _, _):
            .replay
        case .api(404, _, "CHIP_NOT_REGISTERED", _):
            .neverRegistered
        case .api(400, _, _, _), .api(422, _, _, _):
            .unreadableLink
        case .api(429, _, _, _):
            .tooManyCalls
        case .api, .notAuthenticated, .decoding, .transport:
            .failure
        }
    }
}
