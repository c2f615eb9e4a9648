/// One NDEF record, with chunked records already joined.
struct NDEFRecord: Equatable {
    /// Type Name Format: 0 empty, 1 NFC Forum well-known, 2 media type, 3 absolute URI, 4 external, 5 unknown.
    let typeNameFormat: UInt8
    let type: [UInt8]
    let identifier: [UInt8]
    let payload: [UInt8]

    static let wellKnown: UInt8 = 1
    static let uriType: [UInt8] = Array("U".utf8)

    var isURI: Bool { typeNameFormat == Self.wellKnown && type == Self.uriType }

    /// The URI a URI record stands for: its prefix code expanded, its bytes otherwise untouched.
    func uri() throws(TagReadFailure) -> String {
        guard let code = payload.first else { throw .malformedNDEF("URI record without payload") }
        guard let prefix = URIPrefix.expansion(of: code) else {
            throw .malformedNDEF("URI record with reserved prefix code 0x\(String(code, radix: 16, uppercase: true))")
        }
        guard let rest = String(validating: payload.dropFirst(), as: UTF8.self) else {
            throw .malformedNDEF("URI record is not valid UTF-8")
        }
        return prefix + rest
    }
}
