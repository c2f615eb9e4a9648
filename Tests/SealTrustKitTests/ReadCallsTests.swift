import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SealTrustKit
import StationWire
import TestSupport
import Testing

@Suite("Passports, proofs, references, certificates and history against the sandbox", .timeLimit(.minutes(1)))
struct ReadCallsTests {
    @Test func publicPassportKeepsExtraFieldsAsJSON() async throws {
        try await withSandbox { sandbox in
            let passport = try await makeClient(sandbox).passport(identifier: Catalogue.chronograph)
            #expect(passport.identifier == Catalogue.chronograph)
            #expect(passport.accessTier == "public")
            #expect(passport.productName == "Chronograph 42" && passport.brand == "Maison Exemple")
            #expect(passport.gtin == Catalogue.chronographGTIN)
            #expect(passport.fields["country_of_manufacture"] == .string("FR"))
            #expect(passport.fields["carbon_footprint_kg"] == .double(12.4))
            #expect(passport.fields["materials"]?.encoded() == "[{\"name\":\"316L steel\",\"share\":0.82},{\"name\":\"sapphire\",\"share\":0.03}]")
            let recorded = try #require(try await sandbox.requests().only)
            #expect(recorded.query == "tier=public")
            #expect(recorded.headers["accept"] == "application/json" && recorded.headers["content-type"] == nil)
        }
    }

    @Test func ownersPublicReadIsWidenedAndTiersAreGuarded() async throws {
        try await withSandbox { sandbox in
            let tokens = TokenBox("tok-owner")
            let client = makeClient(sandbox, tokens: tokens)
            #expect(try await client.passport(identifier: Catalogue.sealOpened).accessTier == "end_user")
            let forbidden = await sealTrustError { try await client.passport(identifier: Catalogue.sealOpened, tier: .recycler) }
            #expect(forbidden?.httpStatus == 403 && forbidden?.code == "TIER_FORBIDDEN")
            tokens.token = nil
            let unauthorised = await sealTrustError { try await client.passport(identifier: Catalogue.sealOpened, tier: .authority) }
            #expect(unauthorised?.httpStatus == 401 && unauthorised?.code == "NOT_AUTHENTICATED")
            let queries = try await sandbox.requests().map(\.query)
            #expect(queries == ["tier=public", "tier=recycler", "tier=authority"])
        }
    }

    @Test func everyTierGoesOutUnderItsWireName() async throws {
        #expect(AccessTier.allCases.map(\.rawValue) == ["public", "end_user", "repairer", "recycler", "upstream", "authority"])
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-trade"))
            let served = try await client.passport(identifier: Catalogue.chronograph, tier: .recycler)
            #expect(served.accessTier == "recycler")
            let upstream = await sealTrustError { try await client.passport(identifier: Catalogue.chronograph, tier: .upstream) }
            #expect(upstream?.httpStatus == 403)
        }
    }

    @Test func serialIsSentAsOnePercentEncodedSegment() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let odd = "SN-2024/07 é#1"
            let passport = try await client.passport(identifier: odd)
            #expect(passport.identifier == "0x318c49421f0fdb1a0953f1b3e1551f311c8a3201d2b259cdc049b233653b5c29")
            _ = await sealTrustError { try await client.history(identifier: "..") }
            let paths = try await sandbox.requests().map(\.path)
            #expect(paths == ["/passport/SN-2024%2F07%20%C3%A9%231", "/history/%2E%2E"])
        }
    }

    @Test func proofBundleHasFourAnchoringStates() async throws {
        let cases: [(String, AnchoringState)] = [
            (Catalogue.chronograph, .anchored),
            (Catalogue.sealOpened, .neverAnchored),
            (Catalogue.sealOpenedDegrade, .modifiedAfterAnchoring),
            (Catalogue.sealOpenedSilent, .none),
        ]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for (identifier, expected) in cases {
                #expect(try await client.passportProof(identifier: identifier).anchoring == expected, "\(identifier)")
            }
            let anchored = try await client.passportProof(identifier: Catalogue.chronograph)
            #expect(anchored.anchoringChain == "base")
            #expect(anchored.anchoringTxHash == "0x67915db00437a9aa8a46d469e1bb0a0442d575931269bf2fa18e151553a280ca")
            #expect(anchored.dataHash == "0x5827ea716fe45df8701c2943b556fd235cb06bf8ddd4e2afb8057d4ba8164938")
            #expect(anchored.ipfsURI?.hasPrefix("ipfs://") == true)
            #expect(anchored.credentialState == "valid")

            try await sandbox.fault(path: "/passport/", status: 200, body: "{\"anchoring\": {\"state\": \"queued\"}}", count: 1)
            #expect(try await client.passportProof(identifier: Catalogue.chronograph).anchoring == .none)
        }
    }

    @Test func referencePassportAndProofDescribeTheModel() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let reference = try await client.referencePassport(gtin: Catalogue.chronographGTIN)
            #expect(reference.productName == "Chronograph 42" && reference.gtin == Catalogue.chronographGTIN)
            #expect(reference.fields["repairability_index"] == .double(8.1))
            let proof = try await client.referencePassportProof(gtin: Catalogue.chronographGTIN)
            #expect(proof.anchoring == .anchored)
            let badGTIN = await sealTrustError { try await client.referencePassport(gtin: "123") }
            #expect(badGTIN?.httpStatus == 422)
            #expect(badGTIN?.code == nil)
            #expect(badGTIN?.detailText?.hasPrefix("[{") == true)
            #expect(badGTIN?.detailText?.contains("\"loc\":[\"path\",\"gtin\"]") == true)
        }
    }

    @Test func certificateAndItsPDFAddress() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let certificate = try await client.certificate(identifier: Catalogue.chronograph)
            #expect(certificate.identifier == Catalogue.chronograph && certificate.productName == "Chronograph 42")
            #expect(certificate.issuedAt == "2024-11-02T08:15:00Z" && certificate.status == "valid")
            #expect(certificate.fields["issuer"] == .string("SealTrust sandbox CA"))

            let pdfURL = SealTrustClient.certificatePDFURL(identifier: Catalogue.chronograph, base: sandbox.baseURL)
            #expect(pdfURL.absoluteString == "\(sandbox.baseURL.absoluteString)/certificate/\(Catalogue.chronograph).pdf")
            let before = try await sandbox.requests().count
            #expect(before == 1)
            let (pdf, _) = try await URLSession.shared.data(from: pdfURL)
            #expect(pdf.starts(with: Data("%PDF-".utf8)))

            let relay = URL(string: "https://relay.example/sealtrust/")!
            #expect(SealTrustClient.certificatePDFURL(identifier: "SN 1/2", base: relay).absoluteString
                    == "https://relay.example/sealtrust/certificate/SN%201%2F2.pdf")
        }
    }

    @Test func historyComesNewestFirst() async throws {
        try await withSandbox { sandbox in
            let events = try await makeClient(sandbox).history(identifier: Catalogue.chronograph)
            #expect(events.map(\.kind) == ["repair_logged", "authentication_scan", "authentication_scan", "ownership_transfer", "minted"])
            #expect(events.map { $0.fields["city"]?.stringValue } == [nil, "Geneva", "Lyon", nil, nil])
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.at >= $1.at })
        }
    }

    /// A 404 says "not known" only with the API's error object (`{"detail": ...}`); any other 404 is not the API's
    /// answer (sealtrust-api.md): a decoding failure that names the status, which the station's operator hears of.
    @Test func aBare404IsNotTheAPIsNotFound() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let known = await sealTrustError { try await client.passport(identifier: "0x00") }
            #expect(known?.httpStatus == 404 && known?.code == "PASSPORT_NOT_FOUND")
            for (body, type) in [("<html><body>404 Not Found</body></html>", "text/html"), ("", "text/plain"), ("{}", "application/json"),
                                 ("[\"detail\"]", "application/json")] {
                try await sandbox.fault(path: "/history/", status: 404, body: body, count: 1, contentType: type)
                let bare = await sealTrustError { try await client.history(identifier: Catalogue.chronograph) }
                #expect(bare?.httpStatus == nil && bare?.kind == "decoding", "\(body): \(String(describing: bare))")
                #expect(bare?.detailText?.contains("HTTP 404") == true, "\(String(describing: bare?.detailText))")
            }
        }
    }

    @Test func historyOfAnotherShapeIsADecodingError() async throws {
        let bodies = [
            "{\"identifier\": \"x\"}",
            "{\"events\": [{\"kind\": \"minted\"}]}",
            "{\"events\": [{\"kind\": \"minted\", \"at\": \"yesterday\"}]}",
            "{\"events\": {\"kind\": \"minted\"}}",
        ]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for body in bodies {
                try await sandbox.fault(path: "/history/", status: 200, body: body, count: 1)
                let error = await sealTrustError { try await client.history(identifier: Catalogue.chronograph) }
                #expect(error?.kind == "decoding", "\(body)")
            }
        }
    }
}
