/// The certificates a CA bundle holds: its `-----BEGIN CERTIFICATE-----` blocks whose base64 decodes to a DER X.509
/// certificate that parses. A file that holds none (an empty file, `/etc/passwd`) is told apart before libcurl is given
/// it, which would otherwise fail every call with "cannot read the CA file". Standard library only, so the fuzz target
/// builds it alone.
public enum PEMCertificates {
    static let beginLine = Array("-----BEGIN CERTIFICATE-----".utf8)
    static let endLine = Array("-----END CERTIFICATE-----".utf8)

    /// How many of the bundle's certificate blocks hold a certificate that parses.
    public static func count(in pem: [UInt8]) -> Int {
        var count = 0
        var cursor = pem.startIndex
        while let begin = firstIndex(of: beginLine, in: pem, from: cursor) {
            let bodyStart = begin + beginLine.count
            guard let end = firstIndex(of: endLine, in: pem, from: bodyStart) else { break }
            if let der = base64Decoded(pem[bodyStart..<end]), isCertificate(der) { count += 1 }
            cursor = end + endLine.count
        }
        return count
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    // MARK: Base64 (RFC 4648, as RFC 7468 writes it: line breaks and spaces between characters, padding at the end)

    static func base64Decoded(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.count)
        var padding = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                continue
            case UInt8(ascii: "="):
                padding += 1
            default:
                guard padding == 0, let value = base64Value(byte) else { return nil }
                values.append(value)
            }
        }
        guard (values.count + padding) % 4 == 0, padding <= 2, values.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let group = values[index..<min(index + 4, values.count)]
            var bits: UInt32 = 0
            for value in group { bits = bits << 6 | UInt32(value) }
            bits <<= UInt32(6 * (4 - group.count))
            let produced = group.count - 1
            for shift in [16, 8, 0].prefix(produced) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
            index += 4
        }
        return bytes
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    // MARK: DER (X.690), as far as RFC 5280's Certificate

    /// One DER element: its tag and its content's place in the input.
    struct Element {
        let tag: UInt8
        let content: Range<Int>
    }

    static let sequence: UInt8 = 0x30
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let explicitVersion: UInt8 = 0xA0

    /// `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }`, filling the input
    /// exactly, whose `tbsCertificate` holds, in order, an optional version, the serial number, the signature's
    /// algorithm, the issuer, the validity, the subject and the public key, each element well formed to its end.
    static func isCertificate(_ der: [UInt8]) -> Bool {
        guard let certificate = element(in: der, at: 0), certificate.tag == sequence, certificate.content.upperBound == der.count,
              let parts = elements(in: der, certificate.content), parts.map(\.tag) == [sequence, sequence, bitString],
              let fields = elements(in: der, parts[0].content)
        else { return false }
        let tags = fields.map(\.tag)
        let required = tags.first == explicitVersion ? Array(tags.dropFirst()) : tags
        return required.starts(with: [integer, sequence, sequence, sequence, sequence, sequence])
    }

    /// The elements that fill `range` exactly, or nil when one is not well formed.
    static func elements(in der: [UInt8], _ range: Range<Int>) -> [Element]? {
        var found: [Element] = []
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            guard let next = element(in: der[..<range.upperBound], at: cursor) else { return nil }
            found.append(next)
            cursor = next.content.upperBound
        }
        return found
    }

    /// The element at `offset`: a one-byte tag (a certificate needs no other) and a definite length in its shortest form.
    static func element(in der: ArraySlice<UInt8>, at offset: Int) -> Element? {
        guard offset + 2 <= der.endIndex else { return nil }
        let tag = der[offset]
        guard tag & 0x1F != 0x1F else { return nil }
        let first = der[offset + 1]
        var length = 0
        var contentStart = offset + 2
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), contentStart + count <= der.endIndex, der[contentStart] != 0 else { return nil }
            for byte in der[contentStart..<(contentStart + count)] { length = length << 8 | Int(byte) }
            guard length >= 0x80 else { return nil }
            contentStart += count
        }
        guard length <= der.endIndex - contentStart else { return nil }
        return Element(tag: tag, content: contentStart..<(contentStart + length))
    }

    static func element(in der: [UInt8], at offset: Int) -> Element? {
        element(in: der[...], at: offset)
    }
}
