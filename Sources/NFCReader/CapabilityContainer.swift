/// The Type 4 Tag capability container (file E103): how much a READ BINARY may return, and where the NDEF file is.
struct CapabilityContainer: Equatable {
    static let fileIdentifier: UInt16 = 0xE103
    /// CCLEN, mapping version, MLe, MLc and the NDEF File Control TLV.
    static let length = 15

    /// MLe: the most data one READ BINARY may return.
    let maxReadLength: Int
    let ndefFileIdentifier: UInt16
    /// The NDEF file's size, its 2-byte NLEN included.
    let ndefFileSize: Int

    init(_ bytes: [UInt8]) throws(TagReadFailure) {
        guard bytes.count >= Self.length else {
            throw .malformedNDEF("capability container of \(bytes.count) bytes, less than \(Self.length)")
        }
        let majorVersion = bytes[2] >> 4
        guard majorVersion == 2 || majorVersion == 3 else {
            throw .malformedNDEF("capability container mapping version \(majorVersion).\(bytes[2] & 0x0F) is not 2.x or 3.x")
        }
        maxReadLength = Int(bytes[3]) << 8 | Int(bytes[4])
        guard maxReadLength > 0 else { throw .malformedNDEF("capability container MLe is 0") }
        guard bytes[7] == 0x04, bytes[8] == 0x06 else {
            throw .malformedNDEF("capability container lacks the NDEF File Control TLV")
        }
        ndefFileIdentifier = UInt16(bytes[9]) << 8 | UInt16(bytes[10])
        ndefFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
        guard ndefFileSize >= 3 else { throw .malformedNDEF("NDEF file of \(ndefFileSize) bytes cannot hold a message") }
    }
}
