@testable import SealTrustKit

/// The CA bundle check (`PEMCertificates`), which decides whether `--api-ca` holds a certificate before libcurl is
/// given it. The input is read three ways: as the bundle itself, whose count never passes its BEGIN lines; as DER
/// wrapped in a PEM block by this target's own base64, which decodes back to the input byte for byte and counts one
/// exactly when the DER parses; and as DER with one byte more, which never parses (a certificate fills its bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCABundle(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    let count = PEMCertificates.count(in: input)
    check(count >= 0 && count <= occurrences(of: PEMCertificates.beginLine, in: input),
          "\(count) certificates from \(occurrences(of: PEMCertificates.beginLine, in: input)) BEGIN lines")

    let encoded = base64(input)
    check(PEMCertificates.base64Decoded(encoded[...]) == input, "base64 does not read back: \(input)")
    let isCertificate = PEMCertificates.isCertificate(input)
    let wrapped = PEMCertificates.beginLine + [0x0A] + lines(encoded) + PEMCertificates.endLine + [0x0A]
    check(PEMCertificates.count(in: wrapped) == (isCertificate ? 1 : 0), "a wrapped DER counted apart from its parse: \(input)")
    if isCertificate {
        check(!PEMCertificates.isCertificate(input + [0]), "a certificate with a byte after it parsed")
    }
    return 0
}

private func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
    guard bytes.count >= needle.count else { return 0 }
    return (0...(bytes.count - needle.count)).count { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// RFC 4648 base64, padded: written here apart from the decoder it checks.
private func base64(_ bytes: [UInt8]) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var text: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let group = bytes[index..<min(index + 3, bytes.count)]
        var bits: UInt32 = 0
        for byte in group { bits = bits << 8 | UInt32(byte) }
        bits <<= UInt32(8 * (3 - group.count))
        for position in 0..<4 {
            text.append(position <= group.count ? alphabet[Int(bits >> UInt32(18 - 6 * position) & 0x3F)] : UInt8(ascii: "="))
        }
        index += 3
    }
    return text
}

/// 64 characters a line, as RFC 7468 writes them.
private func lines(_ text: [UInt8]) -> [UInt8] {
    stride(from: 0, to: text.count, by: 64).flatMap { text[$0..<min($0 + 64, text.count)] + [0x0A] }
}
