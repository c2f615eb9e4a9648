@testable import SealTrustKit

/// The input is a scanned string (bytes, as a medium gives them). Reading never traps and never changes
/// the string: a chip proof holds the input itself and raw slices of it; a code is only ever read from
/// a string with no white space around it and no control character; a serial sent back as a path
/// segment reads back as the same serial.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let extraHosts = ["brand.example"]
    let code = ScanURL.read(bytes: bytes, extraHosts: extraHosts)
    guard let scanned = String(validating: bytes, as: UTF8.self) else {
        check(code == nil, "bytes that are not UTF-8 read as a code")
        return 0
    }
    check(ScanURL.read(scanned, extraHosts: extraHosts) == code, "bytes and string read differently")
    let withoutProof = ScanURL.isChipLinkWithoutProof(scanned, extraHosts: extraHosts)
    guard let code else { return 0 }
    check(!withoutProof, "a code and a chip link without proof at once")
    check(!scanned.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a code with a control character")
    check(scanned.first?.isWhitespace == false && scanned.last?.isWhitespace == false, "a code with white space around it")
    switch code {
    case .chip(let proof):
        check(Array(proof.url.utf8) == bytes, "the chip URL is not the string as scanned")
        check(isSlice(proof.piccData, of: bytes) && isSlice(proof.cmac, of: bytes), "a proof value that is not a raw slice")
        check(!proof.piccData.isEmpty && !proof.cmac.isEmpty)
    case .printedSerial(let printed):
        check(!printed.serial.isEmpty)
        if let gtin = printed.gtin { checkGTIN(gtin, in: bytes) }
        let sentBack = "https://sealtrust.io/p/" + PathSegment.encode(printed.serial)
        guard case .printedSerial(let again)? = ScanURL.read(sentBack) else {
            fatalError("a serial sent back as a segment does not read back: \(sentBack)")
        }
        check(again.serial == printed.serial, "a serial changed on its way back: \(sentBack)")
    case .productReference(let gtin):
        checkGTIN(gtin, in: bytes)
    }
    return 0
}

func checkGTIN(_ gtin: String, in bytes: [UInt8]) {
    check([8, 12, 13, 14].contains(gtin.utf8.count) && gtin.utf8.allSatisfy { (0x30...0x39).contains($0) }, "GTIN \(gtin)")
    check(isSlice(gtin, of: bytes), "a GTIN that is not as printed")
}

func isSlice(_ value: String, of bytes: [UInt8]) -> Bool {
    let needle = Array(value.utf8)
    guard needle.count <= bytes.count else { return false }
    return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
}
