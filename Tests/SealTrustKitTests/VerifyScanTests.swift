import Foundation
import SealTrustKit
import Sentences
import TestSupport
import Testing

@Suite("verifyScan over HTTP: the body, the headers, and every row of the verdict table", .timeLimit(.minutes(1)))
struct VerifyScanTests {
    @Test func bodyHoldsTheScannedStringByteForByte() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"))
            let scanned = try await sandbox.tap(chip: "spare-a") + "&tt=%2fcafe\u{301}/x+y'"
            let verification = try await client.verifyScan(url: scanned)
            #expect(verification.status == .authentic)

            let recorded = try #require(try await sandbox.requests().only)
            #expect(recorded.method == "POST" && recorded.path == "/scans/verify")
            #expect(Array(recorded.body.utf8) == Array("{\"url\":\"\(scanned)\"}".utf8))
            let decoded = try JSONDecoder().decode([String: String].self, from: Data(recorded.body.utf8))
            #expect(decoded.keys.sorted() == ["url"])
            #expect(Array(try #require(decoded["url"]).utf8) == Array(scanned.utf8))
            #expect(recorded.headers["accept"] == "application/json")
            #expect(recorded.headers["content-type"] == "application/json")
            #expect(recorded.headers["x-sealtrust-client"] == "sealtrust-kit-tests/1")
            #expect(recorded.headers["authorization"] == nil)
        }
    }

    @Test func coordinatesGoOutOnlyInPairsAndComeBackAsACity() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let withBoth = try await client.verifyScan(url: try await sandbox.tap(chip: "spare-a"), latitude: 45.75, longitude: 4.85)
            #expect(withBoth.scanArea == ScanArea(city: "Lyon", country: "FR"))
            let withOne = try await client.verifyScan(url: try await sandbox.tap(chip: "spare-a"), latitude: 45.75)
            #expect(withOne.scanArea == nil)

            let bodies = try await sandbox.requests().map(\.body)
            #expect(bodies.count == 2)
            let first = try JSONSerialization.jsonObject(with: Data(bodies[0].utf8)) as? [String: Any]
            #expect(first?["latitude"] as? Double == 45.75 && first?["longitude"] as? Double == 4.85)
            #expect(!bodies[1].contains("latitude") && !bodies[1].contains("longitude"))
        }
    }

    @Test func authenticChipWithIntactSeal() async throws {
        try await withSandbox { sandbox in
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "authentic"))
            #expect(result.verdict == .authentic)
            #expect(result.verification?.productName == "Chronograph 42")
            #expect(result.verification?.brand == "Maison Exemple")
            #expect(result.verification?.gtin == Catalogue.chronographGTIN)
            #expect(result.verification?.identifier == Catalogue.chronograph)
            #expect(result.seal == SealDisplay(status: .intact, policy: .inform))
            #expect(result.theftReported == false)
            #expect(ScreenTexts.english.sealText(for: result.seal) == ScreenTexts.english.sealIntact)
        }
    }

    @Test func sealDisplayCombinesStatusAndPolicy() async throws {
        let cases: [(chip: String, expected: SealDisplay?, degraded: Bool)] = [
            ("seal-opened", SealDisplay(status: .opened, policy: .inform), false),
            ("seal-opened-degrade", SealDisplay(status: .opened, policy: .degrade), true),
            ("seal-opened-silent", nil, false),
            ("no-seal", nil, false),
        ]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for (chip, expected, degraded) in cases {
                let result = await outcome(client, url: try await sandbox.tap(chip: chip))
                #expect(result.verdict == .authentic, "\(chip)")
                #expect(result.seal == expected, "\(chip)")
                #expect((result.seal?.isDegraded ?? false) == degraded, "\(chip)")
            }
            let noSeal = try await client.verifyScan(url: try await sandbox.tap(chip: "no-seal"))
            #expect(noSeal.tamperStatus == nil && noSeal.tamperPolicy == .inform)
        }
    }

    @Test func theftReportTravelsWithAnAuthenticVerdict() async throws {
        try await withSandbox { sandbox in
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "stolen"))
            #expect(result.verdict == .authentic)
            #expect(result.theftReported == true)
        }
    }

    @Test func signatureThatDoesNotVerifyIsInvalidSignature() async throws {
        try await withSandbox { sandbox in
            var forged = try await sandbox.tap(chip: "spare-b")
            let last = forged.removeLast()
            forged.append(last == "0" ? "1" : "0")
            let result = await outcome(makeClient(sandbox), url: forged)
            #expect(result.verdict == .invalidSignature)
            #expect(result.seal == nil)
        }
    }

    @Test func secondPresentationOfTheVectorIsAReplay() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let first = await outcome(client, url: vectorURL)
            #expect(first.verdict == .authentic)
            #expect(first.verification?.identifier == "0xeda2be22a430a78bf6cb61553dcf3b96cb07737515c235be4386d0c9fefcb5a8")
            let second = await outcome(client, url: vectorURL)
            #expect(second.verdict == .replay)
            #expect(second.error?.code == "REPLAY_DETECTED")
            let recorded = try await sandbox.requests()
            #expect(recorded.count == 2)
        }
    }

    @Test func mintingChipIsMintingInProgress() async throws {
        try await withSandbox { sandbox in
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "minting"))
            #expect(result.verdict == .mintingInProgress)
            #expect(result.error == .api(status: 409, detail: .string("MINT_PENDING: certificate being written"),
                                         code: "MINT_PENDING", retryAfterSeconds: nil))
        }
    }

    @Test func chipWithNothingRegisteredIsNeverRegistered() async throws {
        try await withSandbox { sandbox in
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "never-registered"))
            #expect(result.verdict == .neverRegistered)
            #expect(result.error?.httpStatus == 404 && result.error?.code == "CHIP_NOT_REGISTERED")
        }
    }

    @Test func anyOtherConflictIsReadAsAReplay() async throws {
        let cases: [(body: String, code: String?)] = [
            ("{\"detail\": \"EDIT_CONFLICT: someone else\"}", "EDIT_CONFLICT"),
            ("{\"detail\": \"Conflict\"}", nil),
            ("<html>409</html>", nil),
        ]
        try await withSandbox { sandbox in
            for (body, code) in cases {
                try await sandbox.fault(path: "/scans/verify", status: 409, body: body, count: 1)
                let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
                #expect(result.verdict == .replay, "\(body)")
                #expect(result.error?.code == code, "\(body)")
            }
        }
    }

    @Test func notFoundWithoutTheCodeIsAFailure() async throws {
        let cases: [(body: String, contentType: String)] = [
            ("{\"detail\": \"Not Found\"}", "application/json"),
            ("<html><body>404 Not Found</body></html>", "text/html"),
            ("{\"detail\": \"ITEM_NOT_FOUND: relay misrouted\"}", "application/json"),
        ]
        try await withSandbox { sandbox in
            for (body, contentType) in cases {
                try await sandbox.fault(path: "/scans/verify", status: 404, body: body, count: 1, contentType: contentType)
                let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
                #expect(result.verdict == .failure, "\(body)")
                // An HTML page is not the API's answer: a decoding failure that names the status.
                #expect(body.hasPrefix("{") ? result.error?.httpStatus == 404 : result.error?.kind == "decoding", "\(body)")
            }
        }
    }

    @Test func proofTheServerCannotReadIsAnUnreadableLink() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox, extraHosts: ["nfc.other-brand.example"])
            let notHex = await outcome(client, url: "https://sealtrust.io/c?picc_data=ZZ963FF7828658A599F3041510671E88&cmac=94EED9EE65337086")
            #expect(notHex.verdict == .unreadableLink)
            #expect(notHex.error?.httpStatus == 400 && notHex.error?.code == "MALFORMED_PROOF")
            let unknownHost = await outcome(client, url: "https://nfc.other-brand.example/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)")
            #expect(unknownHost.verdict == .unreadableLink)
            #expect(unknownHost.error?.httpStatus == 422 && unknownHost.error?.code == "NOT_A_CHIP_URL")
            let recorded = try await sandbox.requests()
            #expect(recorded.count == 2)
        }
    }

    @Test func linkWithoutUsableProofFailsLocallyAndSendsNothing() async throws {
        let cases = [
            "https://sealtrust.io/c", "https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac=",
            "https://sealtrust.io/c?picc_data=\(vectorPICC)&picc_data=\(vectorPICC)&cmac=\(vectorCMAC)",
            " \(vectorURL)", "https://sealtrust.io/p/SN-00042", "https://example.com/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)",
        ]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for scanned in cases {
                let result = await outcome(client, url: scanned)
                #expect(result.verdict == .unreadableLink, "\(scanned)")
                #expect(result.error == .invalidScanAddress, "\(scanned)")
            }
            let recorded = try await sandbox.requests()
            #expect(recorded.isEmpty)
        }
    }

    @Test func badRequestAnswerIsAnUnreadableLink() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", status: 400, body: "Bad Request", contentType: "text/plain")
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .unreadableLink)
            #expect(result.error?.httpStatus == 400 && result.error?.code == nil)
        }
    }

    @Test func tooManyCallsCarriesRetryAfterOrSixtySeconds() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", status: 429, body: "{\"detail\": \"RATE_LIMITED: slow down\"}",
                                    count: 1, headers: ["Retry-After": "7"])
            let withHeader = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
            #expect(withHeader.verdict == .tooManyCalls)
            #expect(withHeader.retryAfterSeconds == 7)
            #expect(withHeader.error?.code == "RATE_LIMITED")

            try await sandbox.fault(path: "/scans/verify", status: 429, body: "{\"detail\": \"slow down\"}", count: 1)
            let withoutHeader = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
            #expect(withoutHeader.verdict == .tooManyCalls)
            #expect(withoutHeader.retryAfterSeconds == 60)
        }
    }

    @Test func otherStatusesAreFailuresAndAreNeverRetried() async throws {
        try await withSandbox { sandbox in
            for status in [500, 502, 503, 504, 403, 405] {
                try await sandbox.reset()
                try await sandbox.fault(path: "/scans/verify", status: status, body: "{\"detail\": \"UPSTREAM_DOWN: try later\"}")
                let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
                #expect(result.verdict == .failure, "\(status)")
                #expect(result.error?.httpStatus == status)
                #expect(result.error?.detailText == "UPSTREAM_DOWN: try later")
                let recorded = try await sandbox.requests()
                #expect(recorded.count == 1, "\(status): \(recorded.count) requests")
            }
        }
    }

    @Test func answerOfAnotherShapeIsADecodingFailure() async throws {
        let bodies = [
            "{\"status\": \"probably_fine\"}", "{\"product_name\": \"Chronograph 42\"}", "{\"status\": 1}",
            "[\"authentic\"]", "<html>OK</html>", "",
            "{\"status\": \"authentic\", \"theft_reported\": \"no\"}",
        ]
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for body in bodies {
                try await sandbox.fault(path: "/scans/verify", status: 200, body: body, count: 1)
                let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
                #expect(result.verdict == .failure, "\(body)")
                #expect(result.error?.kind == "decoding", "\(body)")
            }
        }
    }

    @Test func minimalAnswerFillsTheDefaultsAndIgnoresUnknownFields() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", status: 200,
                                    body: "{\"status\": \"authentic\", \"tamper_status\": null, \"tamper_policy\": \"shout\", \"new_field\": [1]}")
            let verification = try await makeClient(sandbox).verifyScan(url: try await sandbox.tap(chip: "spare-a"))
            #expect(verification == ScanVerification(status: .authentic))
            #expect(verification.tamperPolicy == .inform && verification.theftReported == false)
        }
    }

    @Test func timeoutLeavesExactlyOneRequestAtTheServer() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", hold: true)
            let url = try await sandbox.tap(chip: "spare-a")
            let started = ContinuousClock.now
            let result = await outcome(makeClient(sandbox, timeout: 1), url: url)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(2))
            #expect(result.verdict == .failure)
            #expect(result.error?.kind == "transport")
            // The held request answered after the client gave up: still the one request at the server.
            try await sandbox.release()
            var recorded = try await sandbox.requests()
            let deadline = ContinuousClock.now + .seconds(10)
            while recorded.first?.serviceMilliseconds == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                recorded = try await sandbox.requests()
            }
            #expect(recorded.first?.serviceMilliseconds != nil)
            #expect(recorded.count == 1)
        }
    }

    @Test func unreachableServerIsATransportFailure() async throws {
        let sandbox = try await startSandbox()
        let client = makeClient(sandbox)
        let url = try await sandbox.tap(chip: "spare-a")
        sandbox.stop()
        let result = await outcome(client, url: url)
        #expect(result.verdict == .failure)
        #expect(result.error?.kind == "transport")
    }

    @Test func redirectIsNotFollowedSoTheURLIsSentOnce() async throws {
        try await withSandbox { sandbox in
            let elsewhere = sandbox.baseURL.appendingPathComponent("scans/verify").absoluteString
            try await sandbox.fault(path: "/scans/verify", status: 307, body: "", count: 1, headers: ["Location": elsewhere])
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .failure)
            #expect(result.error?.httpStatus == 307)
            let recorded = try await sandbox.requests()
            #expect(recorded.count == 1)
        }
    }

    @Test func droppedConnectionIsAFailureAndIsNotRetried() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", closeConnection: true)
            let result = await outcome(makeClient(sandbox), url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .failure)
            #expect(result.error?.kind == "transport")
            #expect(result.error?.requestNeverWritten == false, "the request went before the connection dropped")
            let recorded = try await sandbox.requests()
            #expect(recorded.count == 1)
        }
    }

    /// A server that answers and closes its side a little later, without saying `Connection: close`: a client that
    /// kept that connection would send the next verify on it, get nothing back, and resend on its own.
    @Test func aVerifyRightAfterAnotherNeverRidesItsConnection() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            try await sandbox.fault(path: "/scans/verify", count: 1, lingerAfterAnswer: 1)
            let urls = [try await sandbox.tap(chip: "spare-a"), try await sandbox.tap(chip: "spare-a")]
            let first = await outcome(client, url: urls[0])
            let started = ContinuousClock.now
            let second = await outcome(client, url: urls[1])
            #expect(first.verdict == .authentic)
            #expect(second.verdict == .authentic, "\(String(describing: second.error))")
            #expect(ContinuousClock.now - started < .milliseconds(900), "the second call did not wait for the first's connection")
            let sent = try await sandbox.requests().filter { $0.path == "/scans/verify" }
            #expect(sent.map(\.body) == urls.map { "{\"url\":\"\($0)\"}" }, "each URL sent once, whole")
        }
    }

    /// A kept-alive connection dropped under a request is the case an HTTP client most likely resends on its own.
    @Test func connectionDroppedAfterAnEarlierCallIsNotRetried() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            let first = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(first.verdict == .authentic)
            try await sandbox.fault(path: "/scans/verify", count: 1, closeConnection: true)
            let url = try await sandbox.tap(chip: "spare-a")
            let started = ContinuousClock.now
            let result = await outcome(client, url: url)
            #expect(result.verdict == .failure)
            #expect(result.error?.kind == "transport")
            // No second request of any kind: not the URL again, nor an empty-bodied resend waiting for the timeout.
            let sent = try await sandbox.requests().filter { $0.path == "/scans/verify" }
            #expect(sent.count == 2)
            #expect(sent.last?.body.contains(url) == true)
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
