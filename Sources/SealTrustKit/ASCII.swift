/// Byte classes of RFC 3986, compared on raw UTF-8 so that no Unicode rule
/// (case folding, normalisation) can touch what was scanned.
enum ASCII {
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let question: UInt8 = 0x3F
    static let hash: UInt8 = 0x23
    static let dot: UInt8 = 0x2E
    static let percent: UInt8 = 0x25
    static let ampersand: UInt8 = 0x26
    static let equals: UInt8 = 0x3D

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == dot || byte == 0x5F || byte == 0x7E
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`
    static func isSubDelimiter(_ byte: UInt8) -> Bool {
        [0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D].contains(byte)
    }

    /// A `pchar` byte (the `%` is checked by `hasValidEscapes`); bytes above
    /// 0x7F belong to non-ASCII characters, accepted as in an IRI.
    static func isSegmentByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || isUnreserved(byte) || isSubDelimiter(byte) || byte == colon || byte == 0x40 || byte == percent
    }

    static func isPathByte(_ byte: UInt8) -> Bool { isSegmentByte(byte) || byte == slash }
    static func isQueryByte(_ byte: UInt8) -> Bool { isSegmentByte(byte) || byte == slash || byte == question }

    /// Every `%` is followed by two hex digits, of either case.
    static func hasValidEscapes(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == percent {
                guard index + 2 < bytes.endIndex, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: byte - 0x61 + 10
        }
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
