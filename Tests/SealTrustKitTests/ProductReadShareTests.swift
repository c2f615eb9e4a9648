import Foundation
import SealTrustKit
import TestSupport
import Testing

/// A screen's automatic product reads never starve printed codes' verdicts (issue 42): they leave the verdicts 20 of
/// the passport bucket's 60 a minute, and a 429 one of them gets stops product reads, not verdicts.
@Suite(.timeLimit(.minutes(1)))
struct ProductReadShareTests {
    func read(_ client: SealTrustClient, for purpose: CallPurpose) -> Result<Passport, any Error> {
        var outcome: Result<Passport, any Error>?
        client.passport(identifier: Catalogue.chronograph, for: purpose) { outcome = $0 }
        return outcome!
    }

    @Test func productReadsLeaveTheVerdictsTheirShare() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for _ in 0..<40 { _ = try read(client, for: .productRead).get() }
            guard case .failure(let refused) = read(client, for: .productRead), case .tooManyCalls? = refused as? SealTrustError else {
                Issue.record("the 41st product read was not refused locally")
                return
            }
            for _ in 0..<20 { _ = try read(client, for: .verdict).get() }
            #expect(try await sandbox.requests().count == 60, "the verdicts' 20 went out")
        }
    }

    @Test func aProductReadsRetryAfterDoesNotCloseTheVerdicts() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            try await sandbox.fault(path: "/passport/", status: 429, body: #"{"detail":"RATE_LIMITED"}"#, count: 1,
                                    contentType: "application/json", headers: ["Retry-After": "999999999"])
            guard case .failure(let limited) = read(client, for: .productRead) else { Issue.record("no 429"); return }
            #expect((limited as? SealTrustError)?.httpStatus == 429)
            guard case .failure(let refused) = read(client, for: .productRead), case .tooManyCalls(let wait)? = refused as? SealTrustError else {
                Issue.record("the next product read went out")
                return
            }
            #expect(wait == 3_600, "an absurd Retry-After obeyed an hour at most, and said as it is")
            #expect(try read(client, for: .verdict).get().productName == "Chronograph 42", "a printed code's verdict still goes")
            #expect(try await sandbox.requests().count == 2)
        }
    }
}
