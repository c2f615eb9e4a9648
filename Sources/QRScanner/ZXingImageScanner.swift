import CZXing

/// zxing-cpp's reader set for QR codes only, their bytes given unchanged (no charset conversion).
/// Not thread-safe: one per decoding thread.
final class ZXingImageScanner {
    /// How zxing-cpp is called.
    enum Call {
        /// Its own default call, as bench/qr/zxing_loop.cpp makes it: `ReadBarcodes`, default hints, QR only.
        case libraryDefault
        /// tryHarder and its scaled-down search, on an image already halved (the decoder's own pass).
        case halfSize
    }

    private let reader: OpaquePointer

    init() {
        guard let reader = czx_reader_create() else { fatalError("zxing-cpp: no memory for a reader") }
        self.reader = reader
    }

    deinit {
        czx_reader_destroy(reader)
    }

    /// The payloads of the QR codes in a grey image, in the order zxing-cpp found them.
    func scan(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, _ call: Call) -> [[UInt8]] {
        guard let base = luma.baseAddress, width > 0, height > 0, luma.count >= width * height else { return [] }
        let count = switch call {
        case .libraryDefault: czx_reader_read_default(reader, base, Int32(width), Int32(height), Int32(width))
        case .halfSize: czx_reader_read(reader, base, Int32(width), Int32(height), Int32(width), CZX_TRY_HARDER | CZX_TRY_DOWNSCALE)
        }
        return (0..<count).compactMap { index in
            var length = 0
            guard let bytes = czx_reader_payload(reader, index, &length) else { return nil }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }
}
