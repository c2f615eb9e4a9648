import Foundation
import JSONCore
import Testing
import TestSupport

/// `passport` end to end: the real daemon reads the sandbox's passports, proofs, certificates and histories.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PassportTests {
    /// Asks `passport` with `subject`'s members and returns the answer with that id.
    func ask(_ client: LineClient, _ subject: [(String, JSON)], id: String) throws -> JSON {
        try client.send(.object([("cmd", "passport"), ("id", .string(id))] + subject))
        var seen: [JSON] = []
        guard let answer = try client.next(timeout: .seconds(20), seen: &seen, where: { $0["id"] == .string(id) }) else {
            throw HarnessError("no answer to passport \(id); saw \(seen.map { $0.encoded() })")
        }
        return answer
    }

    @Test func aScansProductByTheSeedsRulesForEachAnchoringState() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        // Behind a relay (api-base), the certificate a buyer keeps points at the API's public address.
        let publicBase = "https://verify.sealtrust.example/api"
        let daemon = try ScanDaemon(api: api, extra: ["--public-api-base", publicBase]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let client = try LineClient(path: daemon.socketPath)
        try client.send(#"{"cmd":"watch","events":[]}"#)
        let cases = ["SN-00042": "anchored", "SN-00043": "never_anchored", "SN-00044": "modified_after_anchoring", "SN-00045": "none"]
        for (serial, state) in cases.sorted(by: { $0.key < $1.key }) {
            let scanID = try client.verify("https://sealtrust.io/p/\(serial)", id: serial).verdict["scan_id"] ?? .null
            let answer = try ask(client, [("scan_id", scanID)], id: "p-\(serial)")
            #expect(answer["type"] == "passport" && answer["product_name"] != nil, "\(serial): \(answer.encoded())")
            #expect(answer["proof"]?["anchoring"] == .string(state), "\(serial)")
            #expect(!answer.encoded().lowercased().contains("not anchored"), "\(serial)")
            #expect(answer["about"] == "named_item" && answer["certificate"]?["pdf_url"] == nil,
                    "a printed code hands over no certificate to keep: \(serial)")
        }
        let chipScan = try client.verify(try mintChipURL("authentic", counter: 31), id: "chip").verdict["scan_id"] ?? .null
        let genuine = try ask(client, [("scan_id", chipScan)], id: "p-chip")
        let identifier = genuine["identifier"]?.string ?? "?"
        #expect(genuine["about"] == "object" && genuine["verdict"] == "authentic", "\(genuine.encoded())")
        #expect(genuine["certificate"]?["pdf_url"] == .string(publicBase + "/certificate/\(identifier).pdf"), "\(genuine.encoded())")
        #expect(!genuine.encoded().contains(api.baseURL.absoluteString), "the relay's address never reaches a buyer")
        #expect(try ask(client, [("scan_id", "0b4c2a9e-0000-4000-8000-000000000000")], id: "gone")["code"] == "not_available")
        let noToken = try ask(client, [("identifier", "SN-00042"), ("tier", "end_user"), ("parts", ["passport"])], id: "401")
        #expect(noToken["outcome"] == "not_authorized" && noToken["error"]?["http_status"] == 401, "\(noToken.encoded())")

        let anchored = try ask(client, [("identifier", "SN-00042")], id: "history")
        let history = anchored["history"]?.arrayValue ?? []
        #expect(history.first?["kind"] == "repair_logged" && history.first?["at"] == "2025-09-14T16:45:12.250Z", "newest first, as written")
        #expect(history.first?["message"] == "Recorded in the product's history as \u{201C}repair logged\u{201D}.", "a kind the daemon does not know, in its own words")
        #expect(history.map { $0["kind"] }.last == "minted")
        #expect(anchored["proof"]?["message"] == "Anchored on Base.")

        let requests = try await api.requests()
        #expect(!requests.contains { $0.path.hasSuffix(".pdf") }, "pdf_url is built, never fetched")
        #expect(!requests.contains { $0.path.hasPrefix("/passport") && $0.method != "GET" })
    }

    @Test func aStateTheDaemonDoesNotKnowAndAMissingBlockAreNoInformation() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let client = try LineClient(path: daemon.socketPath)
        try client.send(#"{"cmd":"watch","events":[]}"#)
        let body = #"{"data_hash":"ab","anchoring":{"state":"pending_review","chain":"base"}}"#
        try await api.fault(path: "/passport/SN-00046/proof", status: 200, body: body, contentType: "application/json")
        let unknown = try ask(client, [("identifier", "SN-00046"), ("parts", ["proof"])], id: "unknown")
        #expect(unknown["proof"]?["anchoring"] == "none")
        #expect(unknown["proof"]?["message"] == "No information about anchoring.")
        let missing = try ask(client, [("gtin", "03701234567920")], id: "missing")
        #expect(missing["proof"]?["anchoring"] == "none" && missing["proof"]?["message"] == "No information about anchoring.")
        #expect(missing["certificate"] == nil && missing["history"] == nil, "a model, never an object")
        #expect(missing["message"] == "Product reference: it describes the model, not the object in hand.")
    }

    @Test func tiersAsServedAndRefusedAndThe404() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tokenFile = directory + "/token"
        try "tok-owner\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try ScanDaemon(api: api, extra: ["--token-file", tokenFile]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let client = try LineClient(path: daemon.socketPath)
        try client.send(#"{"cmd":"watch","events":[]}"#)

        let widened = try ask(client, [("identifier", "SN-00043")], id: "owner")
        #expect(widened["requested_tier"] == "public" && widened["access_tier"] == "end_user", "\(widened.encoded())")
        let refused = try ask(client, [("identifier", "SN-00043"), ("tier", "repairer")], id: "repairer")
        #expect(refused["outcome"] == "not_authorized", "\(refused.encoded())")
        #expect([401, 403].contains(refused["error"]?["http_status"]?.integer ?? 0))
        #expect(refused["message"] == "This level of the passport is not open to this station.")
        #expect(refused["proof"]?["anchoring"] == "never_anchored", "the public parts still come")
        let unknown = try ask(client, [("identifier", "0x00000000000000000000000000000000000000000000000000000000000000aa")], id: "404")
        #expect(unknown["outcome"] == "not_found" && unknown["message"] == "No passport was found for this product.",
                "a part's failure, never the verdict's sentence")
        #expect(unknown["proof"] == nil && unknown["history"] == nil)

        // The token goes with the passport read, and nowhere else.
        let requests = try await api.requests()
        for request in requests where request.path.hasPrefix("/passport/SN-00043") || request.path.hasPrefix("/certificate")
            || request.path.hasPrefix("/history") {
            let carries = request.headers["authorization"] != nil
            let isPassport = request.path.hasPrefix("/passport/") && !request.path.hasSuffix("/proof")
            #expect(carries == isPassport, "\(request.path) \(carries ? "carried" : "lacked") the token")
        }
    }

    @Test func anExhaustedHistoryBucketLeavesThePassport() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.setLimits(["history": 0])
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let client = try LineClient(path: daemon.socketPath)
        try client.send(#"{"cmd":"watch","events":[]}"#)
        let answer = try ask(client, [("identifier", "SN-00042")], id: "bucket")
        #expect(answer["product_name"] != nil && answer["proof"]?["anchoring"] == "anchored")
        #expect(answer["history"]?["outcome"] == "too_many_calls", "\(answer.encoded())")
        #expect(answer["history"]?["message"]?.string?.hasPrefix("Too many requests right now: this part will be back in ") == true,
                "\(answer.encoded())")
        #expect(answer["history"]?["message"]?.string?.contains("{wait}") == false, "the wait said as it is")
    }

    @Test func scanctlPrintsOneFactALineAndEscapesTheAPIsText() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let printed = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "SN-00044"])
        #expect(printed.status == 0, "\(printed)")
        let lines = printed.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("anchoring: MODIFIED after anchoring"), "\(printed)")
        #expect(lines.contains { $0.hasPrefix("proof: \"Modified after anchoring") })
        // By identifier: the item named, not an object in hand; no certificate to keep, and the caveat first.
        #expect(!lines.contains { $0.hasPrefix("certificate pdf:") }, "\(printed)")
        #expect(lines.first == "warning: modified_after_anchoring: \"Modified after anchoring: this passport no longer matches the version anchored on Base.\"",
                "\(printed)")
        #expect(lines.contains { $0.hasPrefix("warning: named_item_only: ") }, "\(printed)")
        #expect(lines.contains("about: the item the code names, not proof about the object in hand"), "\(printed)")
        #expect(lines.contains("tier served: public (asked public)"))

        let body = #"{"identifier":"0xfeed","access_tier":"public","product_name":"Watch\u001b[2J\u0007","brand":"B"}"#
        try await api.fault(path: "/passport/0xfeed", status: 200, body: body, contentType: "application/json")
        let hostile = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "0xfeed"])
        #expect(!hostile.output.contains("\u{1B}") && !hostile.output.contains("\u{7}"), "\(hostile)")
        #expect(hostile.output.contains("product: Watch\\x1b[2J\\x07"), "\(hostile)")

        let json = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "--json", "03701234567890"])
        let parsed = try JSON.parse(json.output.trimmingCharacters(in: .newlines))
        #expect(json.status == 0 && parsed["gtin"] == "03701234567890", "\(json)")
        let forgotten = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "0b4c2a9e-0000-4000-8000-000000000000"])
        #expect(forgotten.status == 1 && forgotten.errors.contains("not_available"), "\(forgotten)")
        let usage = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "03701234567890", "--tier", "repairer"])
        #expect(usage.status == 2, "\(usage)")
    }

    /// Each fact once, in words, and the API's times in the station's zone: no `certificate:` for the status and
    /// again for its sentence, no field that repeats the identifier or the GTIN, no raw field names.
    @Test func scanctlSaysEachFactOnceInWordsAndTimesInTheStationsZone() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let printed = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "SN-00042"],
                                     environment: ["TZ": "Europe/Paris"])
        #expect(printed.status == 0, "\(printed)")
        let lines = printed.output.split(separator: "\n").map(String.init)
        for name in ["certificate", "identifier", "gtin", "product", "brand", "tier served"] {
            #expect(lines.filter { $0.hasPrefix(name + ": ") }.count == 1, "\(name) once: \(printed.output)")
        }
        #expect(!lines.contains { $0.contains("_") && !$0.hasPrefix("identifier: ") && !$0.hasPrefix("warning: ") },
                "no raw names: \(printed.output)")
        #expect(lines.contains("certificate: \"Certificate of authenticity: valid.\""), "\(printed.output)")
        #expect(lines.contains("certificate issued: 2024-11-02 09:15:00 CET"), "\(printed.output)")
        #expect(lines.contains("country of manufacture: FR") && lines.contains("serial: SN-00042"), "\(printed.output)")
        // 16:45:12.250Z is 18:45:12 in Paris in September; +02:00 and +01:00 as they fall in the zone.
        #expect(lines.contains("history: 2025-09-14 18:45:12 CEST \"Recorded in the product's history as \u{201C}repair logged\u{201D}.\""),
                "\(printed.output)")
        #expect(lines.contains("history: 2025-06-01 10:30:00 CEST \"Passed to a new owner.\""), "\(printed.output)")
        #expect(lines.contains("history: 2024-11-02 08:15:00 CET \"Registered by its brand.\""), "\(printed.output)")

        try await api.fault(path: "/certificate/", status: 429, body: #"{"detail":"RATE_LIMITED: slow down"}"#, count: 1,
                            contentType: "application/json", headers: ["Retry-After": "30"])
        let limited = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "SN-00043"])
        let certificate = limited.output.split(separator: "\n").filter { $0.hasPrefix("certificate") }
        #expect(certificate == ["certificate: \"Too many requests right now: this part will be back in 30 seconds.\" (too many calls, retry after 30 s: RATE_LIMITED: slow down)"],
                "a failed part in one line: \(limited.output)")
    }

    /// The 13 digits printed under a barcode (EAN-13), as the 12 of a UPC-A or the 8 of an EAN-8, are the GTIN-14
    /// with leading zeros: the same model, asked as the API knows it.
    @Test func aShortGTINIsTheSameModelsGTIN14() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let printed = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "passport", "--json", "3701234567890"])
        let parsed = try JSON.parse(printed.output.trimmingCharacters(in: .newlines))
        #expect(printed.status == 0 && parsed["gtin"] == "03701234567890" && parsed["product_name"] != nil, "\(printed)")
        let paths = try await api.requests().map(\.path)
        #expect(paths.contains("/reference/03701234567890") && !paths.contains("/reference/3701234567890"), "\(paths)")
    }
}
