import Glibc

/// `--listen ADDR:PORT`: a numeric IPv4 address, an IPv6 one in brackets, or `localhost` (127.0.0.1), and a port
/// from 0 to 65535.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    public let isIPv6: Bool

    public static let loopback = ListenAddress(host: "127.0.0.1", port: 8080, isIPv6: false)

    /// nil when `text` is not such an address.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        if bracketed { host = String(host.dropFirst().dropLast()) }
        var probe = in6_addr()
        if host == "localhost" {
            self.init(host: "127.0.0.1", port: port, isIPv6: false)
        } else if bracketed, inet_pton(AF_INET6, host, &probe) == 1 {
            self.init(host: host, port: port, isIPv6: true)
        } else if !bracketed, inet_pton(AF_INET, host, &probe) == 1 {
            self.init(host: host, port: port, isIPv6: false)
        } else {
            return nil
        }
    }

    init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    public var description: String { "\(urlHost):\(port)" }

    /// The host as a URL or a `Host` header names it: an IPv6 address in brackets.
    public var urlHost: String { isIPv6 ? "[\(host)]" : host }

    /// 0.0.0.0 or [::]: every address of the machine.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// The address with another port (the one the kernel picked for port 0).
    public func with(port: UInt16) -> ListenAddress { ListenAddress(host: host, port: port, isIPv6: isIPv6) }
}
