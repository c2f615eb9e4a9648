import FoundationEssentials

/// The API's address as the transport needs it: where to connect, what `Host` says, the path prefix.
struct APIEndpoint: Sendable, Hashable {
    /// `https` or `http`.
    let scheme: String
    /// As in the address; an IPv6 literal without its brackets.
    let host: String
    let port: Int
    /// The base address's path without its trailing `/`, "" for none.
    let pathPrefix: String

    init(baseURL: URL) {
        scheme = baseURL.scheme?.lowercased() == "http" ? "http" : "https"
        var host = baseURL.host ?? "localhost"
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        self.host = host
        port = baseURL.port ?? (scheme == "http" ? 80 : 443)
        var path = baseURL.path
        while path.hasSuffix("/") {
            path.removeLast()
        }
        pathPrefix = path
    }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }

    /// The `Host` header: the port only when it is not the scheme's own.
    var hostHeader: String {
        port == (scheme == "http" ? 80 : 443) ? bracketedHost : "\(bracketedHost):\(port)"
    }

    /// What libcurl connects to; it sends nothing on it.
    var connectAddress: String { "\(scheme)://\(bracketedHost):\(port)/" }

    /// For messages: `host:port`.
    var authority: String { "\(bracketedHost):\(port)" }
}
