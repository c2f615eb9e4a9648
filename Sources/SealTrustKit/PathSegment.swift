/// One path segment, percent-decoded or percent-encoded as a whole, so that a
/// `/` inside a serial never turns into a path separator.
enum PathSegment {
    /// Decodes each `%XX` once (a `+` stays a `+`); nil when the escapes are
    /// malformed or the decoded bytes are not UTF-8.
    static func decode(_ raw: ArraySlice<UInt8>) -> String? {
        guard ASCII.hasValidEscapes(raw) else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            if raw[index] == ASCII.percent {
                decoded.append(ASCII.hexValue(raw[index + 1]) << 4 | ASCII.hexValue(raw[index + 2]))
                index += 3
            } else {
                decoded.append(raw[index])
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// Everything outside `unreserved` is escaped with upper-case hex; a
    /// segment of dots alone is escaped too, so no layer can read it as `.` or `..`.
    static func encode(_ value: String) -> String {
        let escapeDots = !value.isEmpty && value.utf8.allSatisfy { $0 == ASCII.dot }
        var encoded = ""
        encoded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if ASCII.isUnreserved(byte) && !(escapeDots && byte == ASCII.dot) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
            }
        }
        return encoded
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
}
