import CZXing

/// zxing-cpp's reader set for QR codes only, their bytes given unchanged (no charset conversion).
/// Not thread-safe: one per decoding thread.
final class ZXingImageScanner {
    private let reader: OpaquePointer

    init() {
        guard let reader = czx_reader_create() else { fatalError("zxing-cpp: no memory for a reader") }
        self.reader = reader
    }

    deinit {
        czx_reader_destroy(reader)
    }

    /// The payloads of the QR codes in a grey image, in the order zxing-cpp found them.
    /// `downscaled`: search the image scaled down too, for large modules and blur.
    func scan(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, downscaled: Bool) -> [[UInt8]] {
        guard let base = luma.baseAddress, width > 0, height > 0, luma.count >= width * height else { return [] }
        let count = czx_reader_read(reader, base, Int32(width), Int32(height), Int32(width), CZX_TRY_HARDER | (downscaled ? CZX_TRY_DOWNSCALE : 0))
        return (0..<count).compactMap { index in
            var length = 0
            guard let bytes = czx_reader_payload(reader, index, &length) else { return nil }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }
}
