import Foundation
import JSONCore
import SealTrustKit
import StationWire
import Testing

@Suite("Machine codes, error properties and the verdict table as pure mappings")
struct OutcomeAndErrorTests {
    @Test(arguments: [
        ("MINT_PENDING: certificate being written", "MINT_PENDING"),
        ("MINT_PENDING", "MINT_PENDING"),
        ("CLAIM_EXPIRED", "CLAIM_EXPIRED"),
        ("REPLAY_DETECTED: counter 61 not above 61", "REPLAY_DETECTED"),
        ("TRANSFER_SENT_PENDING; tracking failed", "TRANSFER_SENT_PENDING"),
        ("A_1-x", "A_1"),
        ("ERROR: x", nil),
        ("ERROR", nil),
        ("Mint_Pending", nil),
        ("mint_pending: x", nil),
        ("MINT_PENDINGx", nil),
        ("MINT_PENDINGé: x", nil),
        (" MINT_PENDING: x", nil),
        ("_MINT_PENDING", nil),
        ("1MINT_PENDING", nil),
        ("The certificate is being written.", nil),
        ("", nil),
    ] as [(String, String?)])
    func machineCode(detail: String, expected: String?) {
        #expect(MachineCode(detail: detail)?.code == expected)
    }

    @Test func aDetailOfMegabytesIsCutToTwoKiBAndSaysSo() {
        let huge = String(repeating: "é", count: 2_621_440)   // 5 MiB of UTF-8
        let error = SealTrustError.api(status: 500, detail: .string(huge), code: nil, retryAfterSeconds: nil)
        let text = error.detailText ?? ""
        #expect(text.utf8.count < 2_200)
        #expect(text.hasPrefix(String(repeating: "é", count: 1_024)))
        #expect(text.hasSuffix("… [cut: 5242880 bytes in all]"))
        #expect(error.description.utf8.count < 2_300)
        let small = SealTrustError.api(status: 500, detail: .string("down for a moment"), code: nil, retryAfterSeconds: nil)
        #expect(small.detailText == "down for a moment")
    }

    @Test func errorCarriesKindStatusDetailAndWait() {
        let listDetail = JSON.array([.object([("loc", .array([.string("body"), .string("url")])), ("msg", .string("Field required"))])])
        let validation = SealTrustError.api(status: 422, detail: listDetail, code: nil, retryAfterSeconds: nil)
        #expect(validation.kind == "api" && validation.httpStatus == 422 && validation.code == nil)
        #expect(validation.detailText == "[{\"loc\":[\"body\",\"url\"],\"msg\":\"Field required\"}]")

        let sentence = SealTrustError.api(status: 503, detail: .string("Service unavailable, try later"), code: nil, retryAfterSeconds: nil)
        #expect(sentence.detailText == "Service unavailable, try later" && sentence.code == nil)
        #expect(SealTrustError.api(status: 502, detail: nil, code: nil, retryAfterSeconds: nil).detailText == nil)

        let limited = SealTrustError.api(status: 429, detail: nil, code: nil, retryAfterSeconds: 60)
        #expect(limited.retryAfterSeconds == 60)
        #expect(SealTrustError.tooManyCalls(retryAfterSeconds: 12).retryAfterSeconds == 12)
        #expect(SealTrustError.tooManyCalls(retryAfterSeconds: 12).kind == nil)
        #expect(SealTrustError.invalidScanAddress.kind == "invalid_scan_address")
        #expect(SealTrustError.notAuthenticated.kind == "not_authenticated")
        #expect(SealTrustError.decoding("x").kind == "decoding" && SealTrustError.transport(TransportFailure(.reset, "x")).kind == "transport")
        #expect(SealTrustError.transport(TransportFailure(.reset, "x")).httpStatus == nil)
        #expect(String(describing: SealTrustError.api(status: 409, detail: .string("MINT_PENDING: x"), code: "MINT_PENDING",
                                                       retryAfterSeconds: nil)) == "API error 409: MINT_PENDING: x")
        #expect(String(describing: SealTrustError.tooManyCalls(retryAfterSeconds: 3)) == "too many calls: refused locally, retry in 3 s")
    }

    @Test(arguments: [
        (.invalidScanAddress, .unreadableLink),
        (.notAuthenticated, .failure),
        (.api(status: 409, detail: .string("REPLAY_DETECTED: seen"), code: "REPLAY_DETECTED", retryAfterSeconds: nil), .replay),
        (.api(status: 409, detail: .string("MINT_PENDING: x"), code: "MINT_PENDING", retryAfterSeconds: nil), .mintingInProgress),
        (.api(status: 409, detail: nil, code: nil, retryAfterSeconds: nil), .replay),
        (.api(status: 409, detail: .string("CLAIM_IN_PROGRESS: x"), code: "CLAIM_IN_PROGRESS", retryAfterSeconds: nil), .replay),
        (.api(status: 404, detail: .string("CHIP_NOT_REGISTERED: x"), code: "CHIP_NOT_REGISTERED", retryAfterSeconds: nil), .neverRegistered),
        (.api(status: 404, detail: nil, code: nil, retryAfterSeconds: nil), .failure),
        (.api(status: 404, detail: .string("MINT_PENDING: x"), code: "MINT_PENDING", retryAfterSeconds: nil), .failure),
        (.api(status: 400, detail: nil, code: nil, retryAfterSeconds: nil), .unreadableLink),
        (.api(status: 422, detail: .array([]), code: nil, retryAfterSeconds: nil), .unreadableLink),
        (.api(status: 429, detail: nil, code: nil, retryAfterSeconds: 60), .tooManyCalls),
        (.tooManyCalls(retryAfterSeconds: 5), .tooManyCalls),
        (.api(status: 401, detail: nil, code: nil, retryAfterSeconds: nil), .failure),
        (.api(status: 403, detail: nil, code: nil, retryAfterSeconds: nil), .failure),
        (.api(status: 500, detail: nil, code: nil, retryAfterSeconds: nil), .failure),
        (.api(status: 502, detail: nil, code: "TRANSFER_NOT_SENT", retryAfterSeconds: nil), .failure),
        (.decoding("status"), .failure),
        (.transport(TransportFailure(.timeout, "no answer from the API within 2 s")), .failure),
    ] as [(SealTrustError, Outcome)])
    func verdictOfAnError(error: SealTrustError, verdict: Outcome) {
        let outcome = ScanOutcome.from(error)
        #expect(outcome.verdict == verdict)
        #expect(outcome.error == error)
        #expect(outcome.verification == nil && outcome.seal == nil && outcome.theftReported == nil)
        #expect(outcome.retryAfterSeconds == (verdict == .tooManyCalls ? error.retryAfterSeconds : nil))
    }

    @Test func anErrorFromElsewhereIsATechnicalFailure() {
        let outcome = ScanOutcome.from(CancellationError())
        #expect(outcome.verdict == .failure)
        #expect(outcome.error?.kind == "transport")
    }

    @Test func verdictOfAnAnswer() {
        let stolenOpened = ScanVerification(status: .authentic, tamperStatus: .opened, tamperPolicy: .degrade, theftReported: true,
                                            scanArea: ScanArea(city: "Lyon", country: "FR"))
        let authentic = ScanOutcome.from(stolenOpened)
        #expect(authentic.verdict == .authentic)
        #expect(authentic.seal == SealDisplay(status: .opened, policy: .degrade))
        #expect(authentic.theftReported == true)
        #expect(authentic.scanArea == ScanArea(city: "Lyon", country: "FR"))
        #expect(authentic.retryAfterSeconds == nil && authentic.error == nil)

        let invalid = ScanOutcome.from(ScanVerification(status: .invalidSignature, tamperStatus: .intact))
        #expect(invalid.verdict == .invalidSignature)
        #expect(invalid.seal == nil)
    }

    @Test func sealDisplayIsEmptyWhenThereIsNothingToShow() {
        for policy in TamperPolicy.allCases {
            #expect(SealDisplay(status: nil, policy: policy) == nil)
            #expect(SealDisplay(status: .intact, policy: policy) == (policy == .silent ? nil : SealDisplay(status: .intact, policy: policy)))
        }
        #expect(SealDisplay(status: .opened, policy: .silent) == nil)
        #expect(SealDisplay(status: .opened, policy: .degrade)?.isDegraded == true)
        #expect(SealDisplay(status: .opened, policy: .inform)?.isDegraded == false)
        #expect(SealDisplay(status: .intact, policy: .degrade)?.isDegraded == false)
    }
}
