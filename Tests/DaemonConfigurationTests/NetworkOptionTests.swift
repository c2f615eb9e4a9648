import Foundation
import DaemonConfiguration
import Testing

@Suite("The API's network options: proxy from the environment unless set or NO_PROXY names the host, none to turn it off, CA file, keep-alive")
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

    /// Whether the environment's proxy is used for the API at `base`, with `exclusions` as NO_PROXY.
    private func proxied(_ base: String, noProxy exclusions: String, variable: String = "NO_PROXY",
                         arguments: [String] = []) throws -> Bool {
        try options(["--api-base", base] + arguments,
                    environment: ["HTTPS_PROXY": "proxy.example:3128", variable: exclusions]).apiProxy != nil
    }

    @Test func noProxyNamesTheAPIHostsReachedDirectlyAsCurlMatchesThem() throws {
        let api = "https://api.sealtrust.io"
        #expect(try proxied(api, noProxy: ""), "an empty list excludes nothing")
        #expect(try !proxied(api, noProxy: "api.sealtrust.io"))
        #expect(try !proxied(api, noProxy: "sealtrust.io"), "a domain excludes its subdomains")
        #expect(try !proxied(api, noProxy: ".sealtrust.io"))
        #expect(try !proxied(api, noProxy: "sealtrust.io."), "a trailing dot is ignored")
        #expect(try !proxied("https://API.SealTrust.io", noProxy: "sealtrust.IO"), "names match in any case")
        #expect(try proxied(api, noProxy: "trust.io"), "only whole labels match: trust.io is not sealtrust.io")
        #expect(try proxied(api, noProxy: "*.sealtrust.io"), "no wildcards inside a list, as in curl")
        #expect(try proxied(api, noProxy: "intranet.example,localhost"))
        #expect(try !proxied(api, noProxy: "intranet.example, sealtrust.io"))
        #expect(try !proxied(api, noProxy: "localhost intranet.example\tsealtrust.io,,"), "blanks and commas separate")
        #expect(try !proxied(api, noProxy: "*"), "* alone excludes every host")
        #expect(try !proxied(api, noProxy: "sealtrust.io", variable: "no_proxy"))
    }

    @Test func noProxyAddressesMatchAddressesAndRanges() throws {
        #expect(try !proxied("http://10.1.2.3:8080", noProxy: "10.1.2.3"))
        #expect(try proxied("http://10.1.2.3:8080", noProxy: "10.1.2.4"))
        #expect(try !proxied("http://10.1.2.3:8080", noProxy: "10.0.0.0/8"))
        #expect(try !proxied("http://10.1.2.3:8080", noProxy: "10.1.2.0/24"))
        #expect(try proxied("http://10.1.2.3:8080", noProxy: "10.1.3.0/24"))
        #expect(try proxied("http://10.1.2.3:8080", noProxy: "10.1.2.0/33"), "more bits than an address has match nothing")
        #expect(try !proxied("http://[fd00::5]:8080", noProxy: "fd00::/8"))
        #expect(try !proxied("http://[fd00::5]:8080", noProxy: "fd00::5"))
        #expect(try proxied("http://[fd00::5]:8080", noProxy: "::1"))
        #expect(try proxied("http://127.0.0.1:8080", noProxy: "localhost"), "a name never matches an address: nothing is resolved")
        #expect(try proxied("http://localhost:8080", noProxy: "127.0.0.1"))
    }

    @Test func noProxyLeavesAProxyNamedOnTheCommandLineAndLowerCaseWins() throws {
        #expect(try proxied("https://api.sealtrust.io", noProxy: "sealtrust.io", arguments: ["--api-proxy", "http://other.example:3128"]),
                "--api-proxy is used as given")
        let both = try options([], environment: ["HTTPS_PROXY": "proxy.example:3128", "no_proxy": "", "NO_PROXY": "sealtrust.io"])
        #expect(both.apiProxy != nil, "no_proxy is read before NO_PROXY, as curl reads it")
    }

    @Test func caFileAndKeepAlive() throws {
        let set = try options(["--api-ca", "/etc/station/ca.pem", "--api-keepalive", "8"])
        #expect(set.apiCAFile == "/etc/station/ca.pem" && set.apiKeepalive == 8)
        #expect(try options([]).apiKeepalive == 20)
        #expect(throws: ConfigurationError.self) { try options(["--api-keepalive", "0"]) }
    }
}
