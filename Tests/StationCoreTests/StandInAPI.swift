import Foundation
import SealTrustKit
import StationCore
import StationWire
import Synchronization

/// The SealTrust API in this process, for the core's tests: each call is answered from what the test set, and each
/// call sent is told on `sent`. `hold()` keeps the calls waiting, on their threads, until `release()`.
final class StandInAPI: StationAPI {
    enum Reply: Sendable {
        case verification(ScanVerification)
        case passport(Passport)
        case proof(ProofBundle)
        case certificate(Certificate)
        case history([HistoryEvent])
        case failure(SealTrustError)
    }

    /// What a call sent: the chip URL, or the passport's identifier or GTIN.
    let sent: AsyncStream<String>
    private let sentContinuation: AsyncStream<String>.Continuation
    private let state = Mutex(State())
    /// Signalled once for each held call let go.
    private let releases = DispatchSemaphore(value: 0)

    private struct State {
        var replies: [String: Reply] = [:]
        var sent: [String] = []
        var holding = false
        var unreachable: SealTrustError?
    }

    init() {
        (sent, sentContinuation) = AsyncStream.makeStream(of: String.self)
    }

    /// `reply` answers every call that sends `key` (a chip URL, a serial, a GTIN; `proof:`, `certificate:` or
    /// `history:` and the identifier or GTIN for those reads); anything else is a 404.
    func answer(_ key: String, with reply: Reply) {
        state.withLock { $0.replies[key] = reply }
    }

    /// Everything sent so far, in order.
    var calls: [String] { state.withLock { $0.sent } }

    /// From now on, each call waits for a `release()` before it is answered.
    func hold() {
        state.withLock { $0.holding = true }
    }

    /// Lets `count` held calls be answered, and answers the later ones at once.
    func release(_ count: Int) {
        state.withLock { $0.holding = false }
        for _ in 0..<count { releases.signal() }
    }

    private func reply(to key: String) -> Reply {
        let (reply, holding) = state.withLock { state in
            state.sent.append(key)
            return (state.replies[key] ?? .failure(.api(status: 404, detail: .string("no such thing"), code: nil, retryAfterSeconds: nil)),
                    state.holding)
        }
        sentContinuation.yield(key)
        if holding { releases.wait() }
        return reply
    }

    /// What `reachable` answers: nil, the API can be reached.
    func setReachability(_ problem: SealTrustError?) {
        state.withLock { $0.unreachable = problem }
    }

    func reachable(within timeout: Duration) -> SealTrustError? {
        state.withLock { $0.unreachable }
    }

    func verifyScan(_ proof: ChipProof, latitude: Double?, longitude: Double?,
                    answeredOnThisThread answered: (Result<ScanVerification, any Error>) -> Void) {
        switch reply(to: proof.url) {
        case .verification(let verification): answered(.success(verification))
        case .failure(let error): answered(.failure(error))
        default: answered(.failure(SealTrustError.decoding("another answer for a chip scan")))
        }
    }

    func passport(identifier: String, tier: AccessTier, for purpose: CallPurpose, answeredOnThisThread answered: (Result<Passport, any Error>) -> Void) {
        answerPassport(reply(to: identifier), answered)
    }

    func referencePassport(gtin: String, for purpose: CallPurpose, answeredOnThisThread answered: (Result<Passport, any Error>) -> Void) {
        answerPassport(reply(to: gtin), answered)
    }

    private func answerPassport(_ reply: Reply, _ answered: (Result<Passport, any Error>) -> Void) {
        switch reply {
        case .passport(let passport): answered(.success(passport))
        case .failure(let error): answered(.failure(error))
        default: answered(.failure(SealTrustError.decoding("another answer for a passport read")))
        }
    }

    func passportProof(identifier: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void) {
        answerProof(reply(to: "proof:" + identifier), answered)
    }

    func referencePassportProof(gtin: String, answeredOnThisThread answered: (Result<ProofBundle, any Error>) -> Void) {
        answerProof(reply(to: "proof:" + gtin), answered)
    }

    private func answerProof(_ reply: Reply, _ answered: (Result<ProofBundle, any Error>) -> Void) {
        switch reply {
        case .proof(let proof): answered(.success(proof))
        case .failure(let error): answered(.failure(error))
        default: answered(.failure(SealTrustError.decoding("another answer for a proof read")))
        }
    }

    func certificate(identifier: String, answeredOnThisThread answered: (Result<Certificate, any Error>) -> Void) {
        switch reply(to: "certificate:" + identifier) {
        case .certificate(let certificate): answered(.success(certificate))
        case .failure(let error): answered(.failure(error))
        default: answered(.failure(SealTrustError.decoding("another answer for a certificate read")))
        }
    }

    func history(identifier: String, answeredOnThisThread answered: (Result<[HistoryEvent], any Error>) -> Void) {
        switch reply(to: "history:" + identifier) {
        case .history(let events): answered(.success(events))
        case .failure(let error): answered(.failure(error))
        default: answered(.failure(SealTrustError.decoding("another answer for a history read")))
        }
    }
}
