import Foundation
import StationCore
import Testing

@Suite("The API's network options: proxy from the environment unless set, none to turn it off, CA file, keep-alive")
struct NetworkOptionTests {
    private func options(_ arguments: [String], environment: [String: String] = [:]) throws -> DaemonOptions {
        let request = try DaemonCommandLine.parse(arguments: arguments, environment: environment, fileExists: { _ in false })
        guard case .run(let options) = request else {
            Issue.record("expected options to run with, got \(request)")
            return DaemonOptions()
        }
        return options
    }

    @Test func proxyDefaultsToTheEnvironmentAndAFlagWins() throws {
        #expect(try options([]).apiProxy == nil)
        #expect(try options([], environment: ["HTTPS_PROXY": "proxy.example:3128"]).apiProxy?.absoluteString == "http://proxy.example:3128")
        #expect(try options([], environment: ["https_proxy": "http://p.example:8080"]).apiProxy?.absoluteString == "http://p.example:8080")
        #expect(try options(["--api-proxy", "none"], environment: ["HTTPS_PROXY": "proxy.example:3128"]).apiProxy == nil)
        #expect(try options(["--api-proxy", "http://other.example:3128"]).apiProxy?.host == "other.example")
        #expect(throws: ConfigurationError.self) { try options(["--api-proxy", "ftp://x"]) }
    }

    @Test func caFileAndKeepAlive() throws {
        let set = try options(["--api-ca", "/etc/station/ca.pem", "--api-keepalive", "8"])
        #expect(set.apiCAFile == "/etc/station/ca.pem" && set.apiKeepalive == 8)
        #expect(try options([]).apiKeepalive == 20)
        #expect(throws: ConfigurationError.self) { try options(["--api-keepalive", "0"]) }
    }
}
