import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Station networks: TLS with a private CA, its failures, a CONNECT proxy, and errors that say what failed",
       .timeLimit(.minutes(1)))
struct StationNetworkTests {
    /// The sandbox behind a TLS end showing a certificate of `kind`; the CA to trust is `folder/certs/ca.pem`.
    private func withTLSSandbox(kind: String, _ body: (SandboxAPI, NetLabPart, URL) async throws -> Void) async throws {
        try await withScratchFolder { folder in
            let certificates = folder.appendingPathComponent("certs")
            let sandbox = try await startSandbox()
            defer { sandbox.stop() }
            let tlsEnd = try await startNetLab(["tls", "--certs", certificates.path, "--kind", kind,
                                                "--upstream", "127.0.0.1:\(sandbox.port)"])
            defer { tlsEnd.stop() }
            try await body(sandbox, tlsEnd, certificates.appendingPathComponent("ca.pem"))
        }
    }

    @Test func privateCAGivesAnAuthenticVerdict() async throws {
        try await withTLSSandbox(kind: "good") { sandbox, tlsEnd, ca in
            let client = networkClient(scheme: "https", host: "localhost", port: tlsEnd.port, caFile: ca)
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .authentic, "\(String(describing: result.error))")
            #expect(try await client.passport(identifier: Catalogue.chronograph).productName == "Chronograph 42")
        }
    }

    @Test(arguments: [
        ("expired", "TLS: certificate has expired"),
        ("wrong-host", "TLS: certificate is not for localhost"),
        ("unknown-ca", "TLS: certificate of localhost signed by an unknown authority"),
    ])
    func certificateFailureSaysWhatIsWrongAndSendsNothing(kind: String, detail: String) async throws {
        try await withTLSSandbox(kind: kind) { sandbox, tlsEnd, ca in
            let client = networkClient(scheme: "https", host: "localhost", port: tlsEnd.port, caFile: ca)
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .failure)
            #expect(result.error?.cause == .tls)
            #expect(result.error?.detailText?.hasPrefix(detail) == true, "\(String(describing: result.error?.detailText))")
            #expect(try await sandbox.requests().isEmpty)
            #expect(result.error?.requestNeverWritten == true, "a handshake that failed sent no proof: it may go later")
            #expect(client.lastFailure?.error == result.error)
        }
    }

    @Test func systemStoreDoesNotTrustATestCA() async throws {
        try await withTLSSandbox(kind: "good") { sandbox, tlsEnd, _ in
            let client = networkClient(scheme: "https", host: "localhost", port: tlsEnd.port)
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.error?.cause == .tls)
            #expect(result.error?.detailText?.contains("unknown authority") == true, "\(String(describing: result.error?.detailText))")
        }
    }

    @Test func proxyTunnelCarriesTheCallsToTheAPI() async throws {
        try await withTLSSandbox(kind: "good") { sandbox, tlsEnd, ca in
            let record = ca.deletingLastPathComponent().appendingPathComponent("proxy-record")
            let proxy = try await startNetLab(["proxy", "--record", record.path])
            defer { proxy.stop() }
            let client = networkClient(scheme: "https", host: "localhost", port: tlsEnd.port,
                                       proxy: URL(string: "http://127.0.0.1:\(proxy.port)")!, caFile: ca)
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .authentic, "\(String(describing: result.error))")
            #expect(recordedLines(record).contains("TUNNEL localhost:\(tlsEnd.port)"), "\(recordedLines(record))")
            #expect(try await sandbox.requests().count == 1)
        }
    }

    @Test func proxyThatRefusesTheTunnelIsAProxyFailure() async throws {
        try await withTLSSandbox(kind: "good") { sandbox, tlsEnd, ca in
            let proxy = try await startNetLab(["proxy", "--refuse", "403"])
            defer { proxy.stop() }
            let client = networkClient(scheme: "https", host: "localhost", port: tlsEnd.port,
                                       proxy: URL(string: "http://127.0.0.1:\(proxy.port)")!, caFile: ca)
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.error?.cause == .proxy)
            #expect(result.error?.detailText?.contains("HTTP 403") == true, "\(String(describing: result.error?.detailText))")
            #expect(try await sandbox.requests().isEmpty)
            #expect(result.error?.requestNeverWritten == true)
        }
    }

    @Test func unreachableProxyIsAProxyFailureAndItsPasswordIsNotSaid() async throws {
        let proxy = try await startNetLab(["proxy"])
        let port = proxy.port
        proxy.stop()
        let client = networkClient(scheme: "https", host: "localhost", port: 443,
                                   proxy: URL(string: "http://station:secret@127.0.0.1:\(port)")!)
        let result = await outcome(client, url: sampleChipURL)
        #expect(result.error?.cause == .proxy)
        #expect(result.error?.detailText?.hasPrefix("could not connect to the proxy http://127.0.0.1:\(port)") == true,
                "\(String(describing: result.error?.detailText))")
        #expect(result.error?.detailText?.contains("secret") == false, "the proxy's password is never in a detail")
    }

    @Test func unknownHostIsADNSFailure() async throws {
        let client = networkClient(scheme: "https", host: "api.sealtrust.invalid", port: 443)
        let result = await outcome(client, url: sampleChipURL)
        #expect(result.error?.cause == .dns)
        #expect(result.error?.detailText == "could not resolve api.sealtrust.invalid")
        #expect(result.error?.requestNeverWritten == true)
    }

    @Test func refusedConnectionIsAConnectFailure() async throws {
        let server = try await startNetLab(["proxy"])
        let port = server.port
        server.stop()
        let result = await outcome(networkClient(port: port), url: sampleChipURL)
        #expect(result.error?.cause == .connect)
        #expect(result.error?.detailText == "could not connect to 127.0.0.1:\(port) (connection refused)")
        #expect(result.error?.requestNeverWritten == true)
    }

    /// Whether the API can be reached, spending nothing: a connection opens and no request goes (the sandbox records
    /// none); refused, it says so, as a failure nothing was written for. The connection it opened serves the next call.
    @Test func reachableOpensAConnectionAndSendsNothing() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            #expect(client.reachable(within: .seconds(3)) == nil)
            #expect(try await sandbox.requests().isEmpty, "no request, no proof spent")
            let result = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.verdict == .authentic)
        }
        let server = try await startNetLab(["proxy"])
        let port = server.port
        server.stop()
        let refused = networkClient(port: port).reachable(within: .seconds(3))
        #expect(refused?.cause == .connect && refused?.requestNeverWritten == true, "\(String(describing: refused))")
    }

    @Test func slowAnswerIsATimeoutFailure() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", delay: 3)
            let result = await outcome(makeClient(sandbox, timeout: 1), url: try await sandbox.tap(chip: "spare-a"))
            #expect(result.error?.cause == .timeout)
            #expect(result.error?.detailText == "no answer from the API within 1 s")
            #expect(result.error?.requestNeverWritten == false, "a request that went may have been read: never sent again")
        }
    }
}
