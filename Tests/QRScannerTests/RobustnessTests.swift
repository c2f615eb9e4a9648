import CZBar
import Foundation
import QRScanner
import Testing

@Suite("The decoder on the robustness set")
struct RobustnessTests {
    /// libzbar as a program that links it would use it: its default configuration.
    private func zbarDefaultDecodes(_ image: GreyImage) -> [[UInt8]] {
        let scanner = zbar_image_scanner_create()
        defer { zbar_image_scanner_destroy(scanner) }
        let zbarImage = zbar_image_create()
        defer { zbar_image_destroy(zbarImage) }
        zbar_image_set_format(zbarImage, UInt(0x3030_3859))
        zbar_image_set_size(zbarImage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { pixels in
            zbar_image_set_data(zbarImage, pixels.baseAddress, UInt(pixels.count), nil)
            zbar_scan_image(scanner, zbarImage)
            var payloads: [[UInt8]] = []
            var symbol = zbar_image_first_symbol(zbarImage)
            while let current = symbol {
                let length = Int(zbar_symbol_get_data_length(current))
                if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                    payloads.append(Array(UnsafeRawBufferPointer(start: data, count: length)))
                }
                symbol = zbar_symbol_next(current)
            }
            return payloads
        }
    }

    @Test func noWrongPayloadEveryCleanCodeAndNoFewerThanZbarsDefault() throws {
        let set = Fixtures.robustness
        #expect(set.count == 72)
        let decoder = QRFrameDecoder()
        var ours = 0, zbarDefault = 0
        for (url, expected, description) in set {
            let image = try #require(GreyImage(contentsOf: url))
            let payloads = image.pixels.withUnsafeBufferPointer { decoder.decode(luma: $0, width: image.width, height: image.height) }
            #expect(payloads.allSatisfy { $0 == expected }, "\(description): a payload that is not the one printed")
            if payloads.contains(expected) { ours += 1 }
            if zbarDefaultDecodes(image).contains(expected) { zbarDefault += 1 }
            // Undamaged codes with modules of 3 px or more are always read.
            let clean = description.split(separator: "-").count == 2 && !description.hasPrefix("m2-")
            if clean {
                #expect(payloads == [expected], "\(description) was not read")
            }
        }
        #expect(ours >= zbarDefault, "ours \(ours) of \(set.count), libzbar's default \(zbarDefault)")
    }
}
