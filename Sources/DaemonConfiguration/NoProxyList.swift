import Glibc

/// `NO_PROXY` (or `no_proxy`): the hosts reached directly although the environment names a proxy, matched as curl
/// matches them, so a station's existing settings mean here what they mean to its other tools.
///
/// A comma- or blank-separated list. `*` alone excludes every host. A name matches itself and its subdomains
/// (`example.com` and `.example.com` both match `api.example.com`, never `notexample.com`), case-insensitively,
/// with trailing dots ignored. An IP address matches the same address, or a range written `10.0.0.0/8` or `fd00::/8`,
/// and only when the host is written as an address (no name is resolved to decide).
struct NoProxyList: Sendable, Equatable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// The list the environment sets, lower-case name first as curl reads it; nil when neither is set.
    static func fromEnvironment(_ environment: [String: String]) -> NoProxyList? {
        (environment["no_proxy"] ?? environment["NO_PROXY"]).map(NoProxyList.init)
    }

    /// Whether `host` (a name, an IPv4 address, or an IPv6 address with or without brackets) goes direct.
    func excludes(host: String) -> Bool {
        if text == "*" { return true }
        var name = Substring(host)
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        let address = Address(name)
        if address == nil, name.hasSuffix(".") { name = name.dropLast() }
        let tokens = text.split { $0 == "," || $0 == " " || $0 == "\t" }
        return tokens.contains { token in
            if let address { return address.isIn(token) }
            return Self.nameMatches(name, token)
        }
    }

    /// `www.example.com` matches `example.com`; `nonexample.com` does not.
    private static func nameMatches(_ name: Substring, _ pattern: Substring) -> Bool {
        var trimmed = pattern
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        if trimmed.hasPrefix(".") { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return false }
        let host = name.lowercased(), domain = trimmed.lowercased()
        return host == domain || host.hasSuffix("." + domain)
    }

    /// A host written as an IP address, as its bytes in network order.
    private struct Address {
        let bytes: [UInt8]

        init?(_ text: some StringProtocol) {
            guard let bytes = Self.parse(String(text)) else { return nil }
            self.bytes = bytes
        }

        private static func parse(_ text: String) -> [UInt8]? {
            var storage = [UInt8](repeating: 0, count: 16)
            if inet_pton(AF_INET, text, &storage) == 1 { return Array(storage.prefix(4)) }
            if inet_pton(AF_INET6, text, &storage) == 1 { return storage }
            return nil
        }

        /// `pattern` is an address of the same family, with an optional `/bits` prefix length (none, 0 or the
        /// whole length: the exact address; more bits than the address has: no match).
        func isIn(_ pattern: Substring) -> Bool {
            let parts = pattern.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let network = Self.parse(String(parts[0])), network.count == bytes.count else { return false }
            var bits = bytes.count * 8
            if parts.count == 2 {
                // As curl's atoi: the leading digits, none being 0.
                let given = Int(parts[1].prefix { $0.isASCII && $0.isNumber }) ?? 0
                guard given <= bytes.count * 8 else { return false }
                if given > 0 { bits = given }
            }
            for index in 0..<bytes.count where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if (bytes[index] ^ network[index]) & mask != 0 { return false }
                bits -= 8
            }
            return true
        }
    }
}
