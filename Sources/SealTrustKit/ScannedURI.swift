/// An `https` URI split by hand on the original bytes, so that nothing is
/// normalised on the way: every part is a raw slice of what was scanned.
struct ScannedURI {
    /// The host, lower-cased (ASCII only) for comparison.
    let host: String
    /// The raw path, starting with `/` (possibly just `/`).
    let path: ArraySlice<UInt8>
    /// The raw query without its `?`; nil when there is no `?`.
    let query: ArraySlice<UInt8>?

    /// Nil unless `text` is an absolute `https` URI (RFC 3986 `absolute-URI`,
    /// so no fragment) with a host, no user info and no port. Non-ASCII
    /// characters are accepted in the path and query, as printed labels carry them.
    init?(_ text: String) {
        for scalar in text.unicodeScalars where Self.isWhitespaceOrControl(scalar) {
            return nil
        }
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: ASCII.colon),
              Self.isScheme(bytes[..<colon]),
              ASCII.lowercased(bytes[..<colon]) == "https"
        else { return nil }

        let afterScheme = bytes[(colon + 1)...]
        guard afterScheme.starts(with: [ASCII.slash, ASCII.slash]) else { return nil }
        let authorityStart = afterScheme.startIndex + 2
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == ASCII.slash || $0 == ASCII.question || $0 == ASCII.hash }
            ?? bytes.endIndex
        guard let host = Self.host(bytes[authorityStart..<authorityEnd]) else { return nil }

        let rest = bytes[authorityEnd...]
        guard !rest.contains(ASCII.hash) else { return nil }
        let queryMark = rest.firstIndex(of: ASCII.question)
        let path = rest[..<(queryMark ?? rest.endIndex)]
        guard path.first == ASCII.slash, path.allSatisfy({ ASCII.isPathByte($0) }), ASCII.hasValidEscapes(path) else {
            return nil
        }
        if let queryMark {
            let query = rest[(queryMark + 1)...]
            guard query.allSatisfy({ ASCII.isQueryByte($0) }), ASCII.hasValidEscapes(query) else { return nil }
            self.query = query
        } else {
            self.query = nil
        }
        self.host = host
        self.path = path
    }

    /// ASCII, nearly every scanned character, without the Unicode property tables, whose first look-ups in a
    /// scan are slow: there White_Space is U+0009 to U+000D and U+0020, and Cc is U+0000 to U+001F and U+007F.
    private static func isWhitespaceOrControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.value <= 0x20 || scalar.value == 0x7F
        }
        return scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }

    /// The path's segments after the leading `/`, empty ones included.
    var pathSegments: [ArraySlice<UInt8>] {
        path.dropFirst().split(separator: ASCII.slash, omittingEmptySubsequences: false)
    }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`
    private static func isScheme(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first, ASCII.isLetter(first) else { return false }
        return bytes.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// A DNS name of letters, digits and hyphens in non-empty labels; user info
    /// and ports are refused outright, and so is anything percent-encoded or bracketed.
    private static func host(_ authority: ArraySlice<UInt8>) -> String? {
        guard !authority.isEmpty,
              !authority.split(separator: ASCII.dot, omittingEmptySubsequences: false).contains(where: \.isEmpty),
              authority.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == 0x2D || $0 == ASCII.dot })
        else { return nil }
        return ASCII.lowercased(authority)
    }
}
