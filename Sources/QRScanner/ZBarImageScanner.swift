import CZBar

/// A zbar image scanner set for QR codes only, their bytes given unchanged.
/// Not thread-safe: one per decoding thread.
final class ZBarImageScanner {
    private let scanner: OpaquePointer

    init() {
        scanner = zbar_image_scanner_create()
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        // Without it zbar guesses a charset and turns UTF-8 and binary payloads into mojibake.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
    }

    deinit {
        zbar_image_scanner_destroy(scanner)
    }

    /// The payloads of the QR codes in a grey image, in the order zbar found them.
    func scan(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, ZBarFourCC.y800)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        zbar_image_set_data(image, luma.baseAddress, UInt(width * height), nil)
        guard zbar_scan_image(scanner, image) > 0 else { return [] }
        var payloads: [[UInt8]] = []
        var symbol = zbar_image_first_symbol(image)
        while let current = symbol {
            // The data may hold NUL bytes: its length, not a terminator, bounds it.
            let length = Int(zbar_symbol_get_data_length(current))
            if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                payloads.append(data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) })
            }
            symbol = zbar_symbol_next(current)
        }
        return payloads
    }
}

enum ZBarFourCC {
    /// zbar_fourcc('Y','8','0','0'): 8-bit grey, the Y plane alone.
    static let y800 = UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8 | UInt(UInt8(ascii: "0")) << 16 | UInt(UInt8(ascii: "0")) << 24
}

/// A rectangle of pixels.
struct PixelRegion: Sendable, Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    func overlaps(_ other: PixelRegion) -> Bool {
        x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
    }

    /// The same region on an image `factor` times larger, kept within its `width` x `height`.
    func scaled(by factor: Int, within imageWidth: Int, _ imageHeight: Int) -> PixelRegion {
        let left = min(x * factor, imageWidth), top = min(y * factor, imageHeight)
        return PixelRegion(x: left, y: top, width: min(width * factor, imageWidth - left), height: min(height * factor, imageHeight - top))
    }
}
