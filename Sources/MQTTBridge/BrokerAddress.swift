/// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (1883 and 8883 by default); `[v6]` brackets allowed.
struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    let host: String
    let port: Int
    let usesTLS: Bool

    init(parsing url: String) throws(UsageError) {
        let rest: Substring
        if url.hasPrefix("mqtt://") {
            usesTLS = false
            rest = url.dropFirst("mqtt://".count)
        } else if url.hasPrefix("mqtts://") {
            usesTLS = true
            rest = url.dropFirst("mqtts://".count)
        } else {
            throw UsageError("--url must start with mqtt:// or mqtts://")
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !authority.contains("/"), !authority.contains("@"), !authority.isEmpty else {
            throw UsageError("--url takes mqtt[s]://HOST[:PORT] only (credentials go in --credentials)")
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw UsageError("--url: unclosed [ in the host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { throw UsageError("--url: bad port") }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        // A bracket inside the host could not be written back as a URL ("[a" would read as an unclosed "[").
        guard !hostPart.isEmpty, hostPart.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") })
        else { throw UsageError("--url: the host is empty or not printable ASCII") }
        host = String(hostPart)
        if let portPart {
            // Digits only: Int("+80") would be taken too.
            guard portPart.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(portPart), (1...65_535).contains(value) else {
                throw UsageError("--url: the port must be 1 to 65535")
            }
            port = value
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }

    var description: String { "\(usesTLS ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// Bad usage: said on stderr, exit 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
