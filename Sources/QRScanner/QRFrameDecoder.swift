/// Turns one grey frame into the payloads of the QR codes it shows.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    private let scanner = ZBarImageScanner()

    public init() {}

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        return scanner.scan(luma, width: width, height: height)
    }
}
