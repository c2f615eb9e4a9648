import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Authorization: on auth claim calls, on passport reads when a token exists, nowhere else", .timeLimit(.minutes(1)))
struct AuthorizationTests {
    /// Runs every call once and returns, per path, the Authorization header the sandbox saw.
    private static func authorizationPerCall(token: String?) async throws -> [String: String?] {
        var seen: [String: String?] = [:]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox(token))
            _ = try? await client.verifyScan(url: try await sandbox.tap(chip: "spare-a"))
            _ = try? await client.requestClaimTicket(for: try await tappedProof(sandbox, chip: "spare-b"))
            _ = try? await client.passport(identifier: Catalogue.chronograph)
            _ = try? await client.passportProof(identifier: Catalogue.chronograph)
            _ = try? await client.referencePassport(gtin: Catalogue.chronographGTIN)
            _ = try? await client.referencePassportProof(gtin: Catalogue.chronographGTIN)
            _ = try? await client.certificate(identifier: Catalogue.chronograph)
            _ = try? await client.history(identifier: Catalogue.chronograph)
            _ = try? await client.requestClaimTicket(serial: "SN-00091")
            _ = try? await client.completeClaim(ClaimTicket(id: "tkt-issued", nonce: "nonce-issued-7f3a", expiresAt: ""))
            _ = try? await client.claimState(ticketID: "tkt-consumed")
            for request in try await sandbox.requests() {
                seen["\(request.method) \(request.path)"] = .some(request.headers["authorization"])
            }
        }
        return seen
    }

    @Test func withATokenOnlyPassportAndAuthClaimCallsCarryIt() async throws {
        let seen = try await Self.authorizationPerCall(token: "tok-user")
        let bearer: String? = "Bearer tok-user"
        #expect(seen == [
            "POST /scans/verify": nil,
            "POST /claims/ticket": nil,
            "GET /passport/\(Catalogue.chronograph)": bearer,
            "GET /passport/\(Catalogue.chronograph)/proof": nil,
            "GET /reference/\(Catalogue.chronographGTIN)": nil,
            "GET /reference/\(Catalogue.chronographGTIN)/proof": nil,
            "GET /certificate/\(Catalogue.chronograph)": nil,
            "GET /history/\(Catalogue.chronograph)": nil,
            "POST /claims/from-serial": bearer,
            "POST /claims/complete": bearer,
            "GET /claims/tkt-consumed": bearer,
        ])
    }

    @Test(arguments: [nil, ""])
    func withoutATokenAuthCallsSendNothingAndTheRestCarryNoHeader(token: String?) async throws {
        let seen = try await Self.authorizationPerCall(token: token)
        #expect(seen == [
            "POST /scans/verify": nil,
            "POST /claims/ticket": nil,
            "GET /passport/\(Catalogue.chronograph)": nil,
            "GET /passport/\(Catalogue.chronograph)/proof": nil,
            "GET /reference/\(Catalogue.chronographGTIN)": nil,
            "GET /reference/\(Catalogue.chronographGTIN)/proof": nil,
            "GET /certificate/\(Catalogue.chronograph)": nil,
            "GET /history/\(Catalogue.chronograph)": nil,
        ])
    }

    @Test func authCallsWithoutATokenFailAsNotAuthenticated() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let fromSerial = await sealTrustError { try await client.requestClaimTicket(serial: "SN-00091") }
            let complete = await sealTrustError {
                try await client.completeClaim(ClaimTicket(id: "tkt-issued", nonce: "nonce-issued-7f3a", expiresAt: ""))
            }
            let state = await sealTrustError { try await client.claimState(ticketID: "tkt-issued") }
            for error in [fromSerial, complete, state] {
                #expect(error == .notAuthenticated)
                #expect(error?.kind == "not_authenticated")
                #expect(error.map { ScanOutcome.from($0).verdict } == .failure)
            }
            let recorded = try await sandbox.requests()
            #expect(recorded.isEmpty)
        }
    }

    @Test func theTokenProviderIsAskedAtEachCall() async throws {
        try await withSandbox { sandbox in
            let tokens = TokenBox("tok-user")
            let client = makeClient(sandbox, tokens: tokens)
            _ = try await client.claimState(ticketID: "tkt-issued")
            tokens.token = "tok-owner"
            _ = try await client.claimState(ticketID: "tkt-issued")
            tokens.token = nil
            let signedOut = await sealTrustError { try await client.claimState(ticketID: "tkt-issued") }
            #expect(signedOut == .notAuthenticated)
            tokens.token = "tok-repairer"
            let passport = try await client.passport(identifier: Catalogue.chronograph, tier: .repairer)
            #expect(passport.accessTier == "repairer")
            #expect(tokens.timesAsked == 4)
            let headers = try await sandbox.requests().map { $0.headers["authorization"] }
            #expect(headers == ["Bearer tok-user", "Bearer tok-owner", "Bearer tok-repairer"])
        }
    }
}
