import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Claims: tickets from a chip and from a serial, completion, state", .timeLimit(.minutes(1)))
struct ClaimTests {
    @Test func chipClaimFromTicketToConsumed() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let proof = try await tappedProof(sandbox, chip: "spare-a")
            let answer = try await client.requestClaimTicket(for: proof)
            let ticket = try #require(answer.ticket)
            #expect(!ticket.nonce.isEmpty)
            #expect(!String(describing: ticket).contains(ticket.nonce))
            #expect(!String(reflecting: ticket).contains(ticket.nonce))
            var dumped = ""
            dump(ticket, to: &dumped)
            #expect(!dumped.contains(ticket.nonce))

            let completion = try await client.completeClaim(ticket)
            #expect(completion.state == "pending")
            #expect(completion.txHash?.hasPrefix("0x") == true)
            #expect(try await client.claimState(ticketID: ticket.id).state == "consumed")

            let recorded = try await sandbox.requests()
            #expect(recorded.map(\.path) == ["/claims/ticket", "/claims/complete", "/claims/\(ticket.id)"])
            #expect(Array(recorded[0].body.utf8) == Array("{\"url\":\"\(proof.url)\"}".utf8))
            #expect(recorded[1].body == "{\"ticket_id\":\"\(ticket.id)\",\"nonce\":\"\(ticket.nonce)\"}")
        }
    }

    @Test func noTicketIsANormalAnswerWithItsReason() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let proof = try await tappedProof(sandbox, chip: "seal-opened")
            let owned = try await client.requestClaimTicket(for: proof)
            #expect(owned.ticket == nil)
            #expect(owned.code == "ALREADY_CLAIMED")
            let codeFirst = try await client.requestClaimTicket(serial: "SN-00049")
            #expect(codeFirst.ticket == nil && codeFirst.code == "PURCHASE_CODE_REQUIRED")
        }
    }

    @Test func serialClaimRefusalsAndTheClosedRoute() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let ticket = try #require(try await client.requestClaimTicket(serial: "SN-00091").ticket)
            #expect(ticket.id.isEmpty == false)
            let owned = await sealTrustError { try await client.requestClaimTicket(serial: "SN-00043") }
            #expect(owned?.httpStatus == 409 && owned?.code == "ALREADY_CLAIMED")
            let closed = await sealTrustError { try await client.requestClaimTicket(serial: "SN-00404") }
            #expect(closed?.httpStatus == 404)
            let bodies = try await sandbox.requests().map(\.body)
            #expect(bodies == ["{\"serial\":\"SN-00091\"}", "{\"serial\":\"SN-00043\"}", "{\"serial\":\"SN-00404\"}"])
        }
    }

    @Test func purchaseCodeIsSentOnlyWhenGiven() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let ticket = ClaimTicket(id: "tkt-purchase-code", nonce: "nonce-code-2e3f", expiresAt: "2099-01-01T00:00:00Z")
            let missing = await sealTrustError { try await client.completeClaim(ticket) }
            #expect(missing?.httpStatus == 422 && missing?.code == "PURCHASE_CODE_REQUIRED")
            #expect(try await client.completeClaim(ticket, purchaseCode: "PC-7781").state == "pending")
            let bodies = try await sandbox.requests().map(\.body)
            #expect(bodies.last == "{\"ticket_id\":\"tkt-purchase-code\",\"nonce\":\"nonce-code-2e3f\",\"purchase_code\":\"PC-7781\"}")
            #expect(bodies.first?.contains("purchase_code") == false)
        }
    }

    @Test func bothBadGatewaysComeBackOnceWithTheirCodes() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let notSent = await sealTrustError {
                try await client.completeClaim(ClaimTicket(id: "tkt-not-sent", nonce: "nonce-not-sent-5d6e", expiresAt: ""))
            }
            #expect(notSent?.httpStatus == 502 && notSent?.code == "TRANSFER_NOT_SENT")
            let pending = await sealTrustError {
                try await client.completeClaim(ClaimTicket(id: "tkt-sent-pending", nonce: "nonce-sent-pending-8f9a", expiresAt: ""))
            }
            #expect(pending?.httpStatus == 502 && pending?.code == "TRANSFER_SENT_PENDING")
            let recorded = try await sandbox.requests()
            #expect(recorded.count == 2)
        }
    }

    @Test func claimStateIsAnOpenString() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let states = try await ["tkt-issued", "tkt-consumed", "tkt-expired", "tkt-canceled", "tkt-under-review"]
                .asyncMap { try await client.claimState(ticketID: $0).state }
            #expect(states == ["issued", "consumed", "expired", "canceled", "under_review"])
            let unknown = await sealTrustError { try await client.claimState(ticketID: "tkt-nope") }
            #expect(unknown?.httpStatus == 404 && unknown?.code == "TICKET_NOT_FOUND")
        }
    }

    @Test func postsAreNeverRetried() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            try await sandbox.fault(path: "/claims/", status: 503, body: "{\"detail\": \"busy\"}")
            let proof = try await tappedProof(sandbox, chip: "spare-b")
            _ = await sealTrustError { try await client.requestClaimTicket(for: proof) }
            _ = await sealTrustError { try await client.requestClaimTicket(serial: "SN-00092") }
            _ = await sealTrustError {
                try await client.completeClaim(ClaimTicket(id: "tkt-issued", nonce: "nonce-issued-7f3a", expiresAt: ""))
            }
            let paths = try await sandbox.requests().map(\.path)
            #expect(paths == ["/claims/ticket", "/claims/from-serial", "/claims/complete"])
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self {
            mapped.append(try await transform(element))
        }
        return mapped
    }
}
