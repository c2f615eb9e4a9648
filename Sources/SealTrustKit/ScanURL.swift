/// What a scanned string is (scan-url.md). Reading never changes the string:
/// a chip proof keeps the original text, and values are raw slices of it.
public enum ScanURL: Sendable, Hashable {
    /// A chip's SUN message: proves the object was there.
    case chip(ChipProof)
    /// A printed label's serial: names an item, proves nothing about presence.
    case printedSerial(PrintedSerial)
    /// A GS1 link with no serial: names a model only.
    case productReference(gtin: String)

    /// Nil when the string is not a SealTrust code (another brand's link, text,
    /// white space around it, a control character, or a chip link with no usable proof).
    /// - Parameter extraHosts: a brand's own resolver domains, each matched exactly.
    public static func read(_ scanned: String, extraHosts: [String] = []) -> ScanURL? {
        guard case .code(let code) = ScanURLReading(scanned, extraHosts: extraHosts) else { return nil }
        return code
    }

    /// Reads raw bytes from a medium; bytes that are not valid UTF-8 are not a SealTrust code.
    public static func read(bytes: some Sequence<UInt8>, extraHosts: [String] = []) -> ScanURL? {
        guard let scanned = String(validating: bytes, as: UTF8.self) else { return nil }
        return read(scanned, extraHosts: extraHosts)
    }

    /// A `/c` link on a SealTrust host whose proof is missing, empty or doubled.
    public static func isChipLinkWithoutProof(_ scanned: String, extraHosts: [String] = []) -> Bool {
        guard case .chipLinkWithoutProof = ScanURLReading(scanned, extraHosts: extraHosts) else { return false }
        return true
    }
}

/// The rules of scan-url.md applied once, with the one outcome `read` hides:
/// a chip link whose proof is unusable (it must answer "unreadable link", not "not SealTrust").
enum ScanURLReading {
    case code(ScanURL)
    case chipLinkWithoutProof

    init?(_ scanned: String, extraHosts: [String]) {
        guard let uri = ScannedURI(scanned), Self.isSealTrustHost(uri.host, extraHosts: extraHosts) else { return nil }
        let segments = uri.pathSegments
        if segments.count == 1, segments[0].elementsEqual("c".utf8) {
            self = Self.chip(scanned, query: uri.query)
        } else if let code = Self.printedShortForm(segments) ?? Self.digitalLink(segments) {
            self = .code(code)
        } else {
            return nil
        }
    }

    /// `sealtrust.io`, any subdomain of it, or one of the extra hosts exactly.
    static func isSealTrustHost(_ host: String, extraHosts: [String]) -> Bool {
        host == "sealtrust.io" || host.hasSuffix(".sealtrust.io")
            || extraHosts.contains { ASCII.lowercased(ArraySlice($0.utf8)) == host }
    }

    /// Exactly one non-empty `picc_data` and one non-empty `cmac`, names and
    /// values compared raw; other parameters are left in the URL untouched.
    private static func chip(_ scanned: String, query: ArraySlice<UInt8>?) -> ScanURLReading {
        var piccData: [ArraySlice<UInt8>] = []
        var cmac: [ArraySlice<UInt8>] = []
        for parameter in query?.split(separator: ASCII.ampersand) ?? [] {
            let equals = parameter.firstIndex(of: ASCII.equals) ?? parameter.endIndex
            let name = parameter[..<equals]
            let value = equals < parameter.endIndex ? parameter[(equals + 1)...] : []
            if name.elementsEqual("picc_data".utf8) {
                piccData.append(value)
            } else if name.elementsEqual("cmac".utf8) {
                cmac.append(value)
            }
        }
        guard piccData.count == 1, cmac.count == 1, !piccData[0].isEmpty, !cmac[0].isEmpty else {
            return .chipLinkWithoutProof
        }
        return .code(.chip(ChipProof(
            url: scanned,
            piccData: String(decoding: piccData[0], as: UTF8.self),
            cmac: String(decoding: cmac[0], as: UTF8.self)
        )))
    }

    /// `/p/{serial}`, exactly two segments.
    private static func printedShortForm(_ segments: [ArraySlice<UInt8>]) -> ScanURL? {
        guard segments.count == 2, segments[0].elementsEqual("p".utf8), !segments[1].isEmpty,
              let serial = PathSegment.decode(segments[1])
        else { return nil }
        return .printedSerial(PrintedSerial(serial: serial))
    }

    /// `/01/{gtin}[/22/{cpv}][/10/{lot}][/21/{serial}]`, in that order and nothing else.
    private static func digitalLink(_ segments: [ArraySlice<UInt8>]) -> ScanURL? {
        guard segments.count >= 2, segments.count % 2 == 0, segments[0].elementsEqual("01".utf8),
              [8, 12, 13, 14].contains(segments[1].count), segments[1].allSatisfy(ASCII.isDigit)
        else { return nil }
        let gtin = String(decoding: segments[1], as: UTF8.self)
        var qualifiers: [String: String] = [:]
        var allowed = ["22", "10", "21"][...]
        for pairStart in stride(from: 2, to: segments.count, by: 2) {
            let key = String(decoding: segments[pairStart], as: UTF8.self)
            guard let position = allowed.firstIndex(of: key), !segments[pairStart + 1].isEmpty,
                  let value = PathSegment.decode(segments[pairStart + 1])
            else { return nil }
            qualifiers[key] = value
            allowed = allowed[(position + 1)...]
        }
        guard let serial = qualifiers["21"] else { return .productReference(gtin: gtin) }
        return .printedSerial(PrintedSerial(serial: serial, gtin: gtin, lot: qualifiers["10"], cpv: qualifiers["22"]))
    }
}
