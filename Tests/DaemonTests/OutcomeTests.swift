import Foundation
import JSONCore
import ScanJournal
import Testing
import TestSupport

/// Every outcome of the protocol, from a `verify` to the sandbox API over HTTP and back to subscribers.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct OutcomeTests {
    struct ChipCase: CustomStringConvertible {
        let chip: String
        let outcome: String
        let seal: JSON?
        let theftReported: Bool?
        var description: String { chip }
    }

    static let chipCases = [
        ChipCase(chip: "authentic", outcome: "authentic", seal: .object([("status", "intact"), ("policy", "inform")]), theftReported: false),
        ChipCase(chip: "seal-opened", outcome: "authentic", seal: .object([("status", "opened"), ("policy", "inform")]), theftReported: false),
        ChipCase(chip: "seal-opened-degrade", outcome: "authentic", seal: .object([("status", "opened"), ("policy", "degrade")]), theftReported: false),
        ChipCase(chip: "seal-opened-silent", outcome: "authentic", seal: nil, theftReported: false),
        ChipCase(chip: "no-seal", outcome: "authentic", seal: nil, theftReported: false),
        ChipCase(chip: "stolen", outcome: "authentic", seal: .object([("status", "intact"), ("policy", "inform")]), theftReported: true),
        ChipCase(chip: "minting", outcome: "minting_in_progress", seal: nil, theftReported: nil),
        ChipCase(chip: "never-registered", outcome: "never_registered", seal: nil, theftReported: nil),
    ]

    @Test func chipOutcomesReachEverySubscriberAndEachURLIsSentOnceByteForByte() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (requester, _) = try daemon.connect()
        let (watcher, _) = try daemon.connect()
        try watcher.send(.object([("cmd", "watch"), ("events", ["verdict"]), ("id", 7)]))
        let ack = try watcher.readJSON()
        #expect(ack?["type"]?.string == "ack" && ack?["id"]?.integer == 7)

        var sent: [String] = []
        for (index, expected) in Self.chipCases.enumerated() {
            let url = try mintChipURL(expected.chip, counter: 10)
            sent.append(url)
            let result = try requester.verify(url, id: "chip-\(index)")
            #expect(result.scan["raw"]?.string == url)
            #expect(result.scan["code"]?.string == "chip")
            #expect(result.scan["proves"]?.string == "presence")
            #expect(result.scan["medium"]?.string == "manual" && result.scan["source"]?.string == "manual")
            let verdict = result.verdict
            #expect(verdict["outcome"]?.string == expected.outcome, "\(expected.chip): \(verdict.encoded())")
            #expect(verdict["seal"] == expected.seal, "\(expected.chip): \(verdict.encoded())")
            #expect(verdict["theft_reported"]?.bool == expected.theftReported, "\(expected.chip): \(verdict.encoded())")
            #expect(verdict["request_id"]?.string == "chip-\(index)")
            #expect(verdict["latency_ms"]?.integer != nil)
            let message = verdict["message"]?.string ?? ""
            let opening = [
                "authentic": "Authentic product.",
                "minting_in_progress": "Authentic chip: its certificate is being written.",
                "never_registered": "Authentic chip, but nothing was ever registered for it.",
            ][expected.outcome]
            #expect(opening.map(message.hasPrefix) == true, "\(expected.chip): \(message)")
            #expect(message.contains("a theft report is open") == (expected.theftReported == true), "\(expected.chip): \(message)")
            let verdictSeq = verdict["seq"]?.integer ?? 0
            let scanSeq = result.scan["seq"]?.integer ?? 0
            #expect(verdictSeq > scanSeq)

            let watched = try watcher.next { $0["type"]?.string != "verdict" || $0["scan_id"] == verdict["scan_id"] }
            #expect(watched == verdict, "the watching client gets the same verdict line, and no scan event")
        }
        let again = try requester.verify(sent[0], id: "again").verdict
        #expect(again["outcome"]?.string == "replay", "the server's replay answers a URL presented twice from outside")
        let renamed = try requester.verify(sent[0].replacingOccurrences(of: "picc_data", with: "PICC_DATA"), id: "case").verdict
        #expect(renamed["outcome"]?.string == "unreadable_link")

        let bodies = try await api.requests().filter { $0.path == "/scans/verify" }.map(\.body)
        let urls = try bodies.map { try JSON.parse($0)["url"]?.string }
        for url in sent.dropFirst() {
            #expect(urls.filter { $0 == url }.count == 1, "each chip URL reaches the API once, byte for byte")
        }
        #expect(urls.filter { $0 == sent[0] }.count == 2, "sent once per verify: the first and the deliberate second")
        #expect(urls.count == sent.count + 1, "a link without a usable proof is answered without a call")
        let headers = try #require(try await api.requests().first?.headers)
        #expect(headers["x-sealtrust-client"] == "sealtrust-scand/0.1.0")
    }

    @Test func tamperedSignatureMissingProofAndForeignCodes() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let genuine = try mintChipURL("spare-a", counter: 3)
        let tampered = String(genuine.dropLast()) + (genuine.hasSuffix("0") ? "1" : "0")
        #expect(try client.verify(tampered, id: "t").verdict["outcome"]?.string == "invalid_signature")

        let noProof = try client.verify("https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88", id: "u")
        #expect(noProof.scan["code"]?.string == "chip")
        #expect(noProof.verdict["outcome"]?.string == "unreadable_link")
        #expect(noProof.verdict["error"]?["kind"]?.string == "invalid_scan_address")

        let foreign = try client.verify("https://id.gs1.org/01/09506000134352", id: "f")
        #expect(foreign.scan["code"]?.string == "foreign")
        #expect(foreign.scan["proves"] == nil)
        #expect(foreign.verdict["outcome"]?.string == "not_sealtrust")
        #expect(foreign.verdict["message"]?.string == "This code is not a SealTrust code.")

        let padded = " " + genuine
        let spaced = try client.verify(padded, id: "s")
        #expect(spaced.scan["raw"]?.string == padded, "the string is kept exactly, white space included")
        #expect(spaced.verdict["outcome"]?.string == "not_sealtrust")

        let calls = try await api.requests().filter { $0.path == "/scans/verify" }
        #expect(calls.count == 1, "only the tampered chip URL was sent")
    }

    @Test func printedSerialsAndReferencesReadPassports() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let short = try client.verify("https://sealtrust.io/p/SN-00042", id: "1")
        #expect(short.scan["code"]?.string == "printed_serial")
        #expect(short.scan["proves"]?.string == "identity")
        #expect(short.scan["serial"]?.string == "SN-00042")
        #expect(short.verdict["outcome"]?.string == "identified")
        #expect(short.verdict["product_name"]?.string == "Chronograph 42")
        #expect(short.verdict["access_tier"]?.string == "public")

        let gs1 = try client.verify("https://id.sealtrust.io/01/03701234567890/21/SN-00043", id: "2")
        #expect(gs1.scan["serial"]?.string == "SN-00043" && gs1.scan["gtin"]?.string == "03701234567890")
        #expect(gs1.verdict["outcome"]?.string == "identified")

        let model = try client.verify("https://id.sealtrust.io/01/03701234567890", id: "3")
        #expect(model.scan["code"]?.string == "product_reference" && model.scan["proves"]?.string == "model")
        #expect(model.verdict["outcome"]?.string == "identified")
        #expect(model.verdict["gtin"]?.string == "03701234567890")

        let missing = try client.verify("https://sealtrust.io/p/SN-99999", id: "4")
        #expect(missing.verdict["outcome"]?.string == "not_found")
        #expect(missing.verdict["message"]?.string == "Product not found. Check the code and try again.")

        let paths = try await api.requests().map(\.path)
        #expect(paths.contains("/passport/SN-00042") && paths.contains("/reference/03701234567890"))
    }

    /// A printed code answered 404 by something other than the API (an HTML page, an empty body: a misrouted relay, a
    /// captive proxy) is a technical failure, as a chip's is: never "Product not found. Check the code", which sends a
    /// buyer to doubt a genuine label.
    @Test func aBare404ToAPrintedCodeIsAFailure() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        for (index, (body, type)) in [("<html><body><h1>404 Not Found</h1></body></html>", "text/html"), ("", "text/plain")].enumerated() {
            try await api.fault(path: "/passport/SN-00042", status: 404, body: body, count: 1, contentType: type)
            let verdict = try client.verify("https://sealtrust.io/p/SN-00042", id: "bare-\(index)").verdict
            #expect(verdict["outcome"]?.string == "failure", "\(type): \(verdict)")
            #expect(verdict["error"]?["kind"]?.string == "decoding" && verdict["error"]?["detail"]?.string?.contains("HTTP 404") == true, "\(verdict)")
        }
        let missing = try client.verify("https://sealtrust.io/p/SN-99999", id: "known").verdict
        #expect(missing["outcome"]?.string == "not_found", "the API's own 404 is still not found: \(missing)")
    }

    /// The 429 comes last: after it the client refuses calls locally until Retry-After has passed.
    @Test func rateLimitAndServerErrorsAreTheirOwnOutcomes() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        try await api.fault(path: "/scans/verify", status: 503, body: "{\"detail\":\"UPSTREAM_DOWN: maintenance\"}", count: 1)
        let failed = try client.verify(try mintChipURL("spare-b", counter: 5), id: "f").verdict
        #expect(failed["outcome"]?.string == "failure")
        #expect(failed["error"]?["kind"]?.string == "api")
        #expect(failed["error"]?["http_status"]?.integer == 503)
        #expect(failed["error"]?["code"]?.string == "UPSTREAM_DOWN")

        try await api.fault(path: "/scans/verify", status: 503, count: 1)
        let url = try mintChipURL("spare-b", counter: 6)
        _ = try client.verify(url, id: "once")
        let sends = try await api.requests().filter { $0.path == "/scans/verify" && $0.body.contains(url) }
        #expect(sends.count == 1, "a 5xx is never retried on our own")

        try await api.fault(path: "/scans/verify", status: 429, body: "{\"detail\":\"slow down\"}", count: 1)
        let limited = try client.verify(try mintChipURL("spare-b", counter: 8), id: "l").verdict
        #expect(limited["outcome"]?.string == "too_many_calls")
        #expect(limited["retry_after_s"]?.integer == 60)
        let refused = try client.verify(try mintChipURL("spare-b", counter: 9), id: "r").verdict
        #expect(refused["outcome"]?.string == "too_many_calls", "refused locally while the server asks to wait")
        let afterLimit = try await api.requests().filter { $0.path == "/scans/verify" }.count
        #expect(afterLimit == 3, "the refused call was not sent")

        let (other, _) = try daemon.connect()
        let status = try #require(try { try other.send("{\"cmd\":\"status\",\"id\":\"s\"}"); return try other.next { $0["type"]?.string == "status" } }())
        #expect(status["counters"]?["scans"]?.integer == 4)
        #expect(status["counters"]?["verdicts"]?["failure"]?.integer == 2)
        #expect(status["counters"]?["verdicts"]?["too_many_calls"]?.integer == 2)
        #expect(status["counters"]?["api_errors"]?.integer == 2)
    }

    @Test func frenchMessagesAndTierWithATokenReReadWhenItChanges() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        let tokenFile = directory + "/token"
        try "tok-repairer\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: api, extra: ["--lang", "fr", "--tier", "repairer", "--token-file", tokenFile],
                                    directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let foreign = try client.verify("WIFI:S:guest;;", id: "w").verdict
        #expect(foreign["message"]?.string == "Ce code n'est pas un code SealTrust.")
        let repairer = try client.verify("https://sealtrust.io/p/SN-00042", id: "r").verdict
        #expect(repairer["outcome"]?.string == "identified")
        #expect(repairer["access_tier"]?.string == "repairer")

        try "tok-user\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let refused = try client.verify("https://sealtrust.io/p/SN-00042", id: "u").verdict
        #expect(refused["outcome"]?.string == "failure")
        #expect(refused["error"]?["http_status"]?.integer == 403)

        let authorizations = try await api.requests().compactMap { $0.headers["authorization"] }
        #expect(authorizations == ["Bearer tok-repairer", "Bearer tok-user"])
        #expect(!daemon.process.standardError.contains("tok-repairer"), "the token is never logged")
    }
}
