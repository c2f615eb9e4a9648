import QRScanner

/// The input is a grey frame: its first byte sets the width (16 to 271 pixels), the rest are the pixels,
/// row by row (a last partial row dropped). Every pass reads it, zxing-cpp's and zbar's decoders of the
/// code's bits and our finder search alike. Nothing traps; a payload is never longer than a QR code holds
/// (7,089 digits), and none comes twice.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 1 else { return 0 }
    let width = 16 + Int(data[0])
    let height = (size - 1) / width
    guard height > 0 else { return 0 }
    let pixels = UnsafeBufferPointer(start: data + 1, count: width * height)
    let decoder = QRFrameDecoder()
    for passes in QRFrameDecoder.Pass.allCases.map({ [$0] }) + [nil] {
        let payloads = decoder.decode(luma: pixels, width: width, height: height, passes: passes)
        check(payloads.allSatisfy { $0.count <= 7089 }, "a payload longer than any QR code holds")
        check(Set(payloads).count == payloads.count, "a payload given twice")
    }
    return 0
}
