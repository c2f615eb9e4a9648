import Glibc

/// The names a request's `Host` may give: the listen address, `localhost`, and `--allow-host` names.
///
/// A page elsewhere whose name an attacker points at the station's address (DNS rebinding) reaches the bridge
/// with its own name as `Host`, and is refused: it cannot read `/events` from a browser on the station. An
/// address given as numbers cannot be rebound, so with a wildcard `--listen` (0.0.0.0, [::]) any numeric one is
/// the listen address. A request without `Host` (HTTP/1.0) names nothing to rebind, and passes.
public struct AllowedHosts: Sendable, Equatable {
    /// Lower case, IPv6 addresses in brackets.
    let names: Set<String>
    let anyNumeric: Bool

    public init(listen: ListenAddress, extra: [String]) {
        names = Set(([listen.urlHost, "localhost"] + extra).map { $0.lowercased() })
        anyNumeric = listen.isWildcard
    }

    /// Whether `header` (the `Host` field, with or without a port) names this bridge.
    public func permits(_ header: String?) -> Bool {
        guard let header else { return true }
        guard let host = Self.host(of: header) else { return false }
        return names.contains(host.lowercased()) || anyNumeric && Self.isNumeric(host)
    }

    /// The host part of `host[:port]` or `[v6][:port]`; nil when it is not of that form.
    static func host(of header: String) -> String? {
        var rest = Substring(header)
        let host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[...close]
            rest = rest[rest.index(after: close)...]
        } else {
            host = rest.prefix { $0 != ":" }
            rest = rest.dropFirst(host.count)
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", port.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        }
        return host.isEmpty ? nil : String(host)
    }

    static func isNumeric(_ host: String) -> Bool {
        var probe = in6_addr()
        if host.hasPrefix("[") && host.hasSuffix("]") { return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &probe) == 1 }
        return inet_pton(AF_INET, host, &probe) == 1
    }

    /// A name for `--allow-host`: letters, digits, dots and hyphens, as DNS has them, or a numeric address.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && (isNumeric(text)
            || text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) || $0 == 0x2E || $0 == 0x2D })
    }
}
