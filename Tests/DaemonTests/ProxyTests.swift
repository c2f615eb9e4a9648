import Foundation
import JSONCore
import Testing
import TestSupport

/// The API through a station's real HTTP proxy (Debian's tinyproxy on loopback), set in the environment as a
/// station sets it (`HTTPS_PROXY`), with `NO_PROXY`'s exclusions.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ProxyTests {
    /// The sandbox behind a TLS end for `localhost`, and tinyproxy allowed to tunnel to it alone; the daemon's
    /// arguments that reach that API (its CA given with `--api-ca`, never added to the machine's store).
    private func withProxiedAPI(_ body: (SandboxAPI, NetLabPart, Tinyproxy, [String]) async throws -> Void) async throws {
        let certificates = try ScratchDirectory("sealtrust-proxy-certs")
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let tlsEnd = try NetLabPart.start(["tls", "--certs", certificates.path, "--kind", "good", "--upstream", "127.0.0.1:\(api.port)"])
        defer { tlsEnd.stop() }
        let proxy = try Tinyproxy(connectPorts: [tlsEnd.port])
        defer { proxy.stop() }
        try await body(api, tlsEnd, proxy, ["--api-base", "https://localhost:\(tlsEnd.port)", "--api-ca", certificates.path + "/ca.pem"])
    }

    /// The station's environment: this proxy, and `exclusions` as its NO_PROXY (the test process's own settings replaced).
    private func environment(proxy: Tinyproxy, exclusions: String) -> [String: String] {
        ["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)", "https_proxy": "", "no_proxy": exclusions, "NO_PROXY": exclusions]
    }

    @Test func chipVerifyGoesThroughTheProxysTunnelExactlyOnce() async throws {
        try await withProxiedAPI { api, tlsEnd, proxy, arguments in
            let daemon = try ScanDaemon(api: nil, extra: arguments, environment: environment(proxy: proxy, exclusions: ""))
            defer { _ = daemon.terminate(); daemon.removeDirectory() }
            try daemon.waitUntilListening()
            let (client, _) = try daemon.connect()
            let url = try mintChipURL("authentic", counter: 10)

            let verdict = try client.verify(url, id: "proxied").verdict
            #expect(verdict["outcome"]?.string == "authentic", "\(verdict.encoded()); tinyproxy: \(proxy.log)")
            let sent = try await api.requests().filter { $0.path == "/scans/verify" }.map { try JSON.parse($0.body)["url"]?.string }
            #expect(sent == [url], "the chip URL reaches the API once, byte for byte")
            let tunnel = "CONNECT localhost:\(tlsEnd.port) HTTP/1.1"
            #expect(proxy.requests.contains(tunnel), "through the proxy's tunnel: \(proxy.requests)")
            #expect(proxy.requests.allSatisfy { $0 == tunnel }, "nothing but tunnels to the API: \(proxy.requests)")

            proxy.stop()
            let without = try client.verify(try mintChipURL("authentic", counter: 11), id: "no-proxy").verdict
            #expect(without["error"]?["cause"]?.string == "proxy", "with the proxy gone the call fails there: \(without.encoded())")
            #expect(try await api.requests().filter { $0.path == "/scans/verify" }.count == 1, "and never goes around it")
        }
    }

    @Test func noProxyNamingTheAPIHostGoesDirect() async throws {
        try await withProxiedAPI { api, _, proxy, arguments in
            let daemon = try ScanDaemon(api: nil, extra: arguments, environment: environment(proxy: proxy, exclusions: "intranet.example, localhost"))
            defer { _ = daemon.terminate(); daemon.removeDirectory() }
            try daemon.waitUntilListening()
            let (client, _) = try daemon.connect()

            let verdict = try client.verify(try mintChipURL("authentic", counter: 10), id: "direct").verdict
            #expect(verdict["outcome"]?.string == "authentic", "\(verdict.encoded())")
            #expect(try await api.requests().filter { $0.path == "/scans/verify" }.count == 1)
            #expect(proxy.requests.isEmpty, "no tunnel: \(proxy.requests)")
        }
    }
}
