import CZXing
import Foundation
import QRScanner
import Testing

/// zxing-cpp 1.4 as a program that links it would use it: its default hints, QR codes only.
func zxingDefaultDecodes(_ image: GreyImage) -> [[UInt8]] {
    guard let reader = czx_reader_create() else { return [] }
    defer { czx_reader_destroy(reader) }
    return image.pixels.withUnsafeBufferPointer { pixels in
        let count = czx_reader_read_default(reader, pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width))
        return (0..<count).compactMap { index in
            var length = 0
            guard let bytes = czx_reader_payload(reader, index, &length) else { return nil }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }
}

private func decode(_ image: GreyImage, with decoder: QRFrameDecoder = QRFrameDecoder(), passes: [QRFrameDecoder.Pass]? = nil) -> [[UInt8]] {
    image.pixels.withUnsafeBufferPointer { decoder.decode(luma: $0, width: image.width, height: image.height, passes: passes) }
}

@Suite("The decoder on photographs of QR codes (../shared/fixtures/realqr)", .timeLimit(.minutes(3)))
struct RealPhotoTests {
    /// qrcode-7 holds one structured-append code in four symbols and no payload of a symbol alone: not a case.
    @Test(arguments: ["qrcode-1", "qrcode-2", "qrcode-3", "qrcode-4", "qrcode-5", "qrcode-6"])
    func everyPhotoEitherLibraryReadsIsRead(category: String) throws {
        let photos = Fixtures.realPhotos.filter { $0.category == category }
        #expect(photos.count >= 8, "the photos of \(category) were made into frames from \(Fixtures.realPhotoFolder) (the repository's ../shared/fixtures/realqr)")
        var ours = 0, zbar = 0, zxing = 0
        for photo in photos {
            let image = try #require(GreyImage(contentsOf: photo.image))
            let payloads = decode(image)
            let reads = { (found: [[UInt8]]) in photo.expected.contains { found.contains($0) } }
            // A photo with one code gives its payload or none (qrcode-2's photo 16 shows two codes, an inner and an outer one).
            #expect(payloads.count > 1 || payloads.allSatisfy(photo.expected.contains), "\(photo.image.lastPathComponent): a payload that is not the one printed")
            let zbarReads = reads(zbarDefaultDecodes(image)), zxingReads = reads(zxingDefaultDecodes(image))
            #expect(reads(payloads) || !(zbarReads || zxingReads), "\(photo.image.lastPathComponent): libzbar or zxing-cpp reads it, we do not")
            ours += reads(payloads) ? 1 : 0
            zbar += zbarReads ? 1 : 0
            zxing += zxingReads ? 1 : 0
        }
        #expect(ours >= max(zbar, zxing), "\(category): ours \(ours), libzbar \(zbar), zxing-cpp \(zxing) of \(photos.count)")
    }

    @Test func aCodeTurnedByAnyMultipleOf15DegreesIsRead() throws {
        let turned = Fixtures.turnedPhotos
        #expect(turned.count == 3 * 24, "the turned photos were made from \(Fixtures.realPhotoFolder) (the repository's ../shared/fixtures/realqr)")
        for photo in turned {
            let image = try #require(GreyImage(contentsOf: photo.image))
            #expect(photo.expected.contains(decode(image).first ?? []), "\(photo.image.lastPathComponent) (\(photo.category) degrees) is not read")
        }
    }
}

@Suite("Bytes as the code holds them, whichever library reads it", .timeLimit(.minutes(1)))
struct ExactBytesTests {
    @Test(arguments: ["binary", "shift-jis", "reserved-url"])
    func bothLibrariesGiveTheCodesOwnBytesAndTheDecoderGivesThemOnce(name: String) throws {
        let exact = try #require(Fixtures.exact[name])
        let image = try #require(GreyImage(contentsOf: exact.image))
        // Each library on its own reads the same bytes: a frame or a stream read by one, then the other, is one code.
        #expect(decode(image, passes: [.zxing]) == [exact.expected], "zxing-cpp's reading of \(name)")
        #expect(decode(image, passes: [.wholeFrame]) == [exact.expected], "zbar's reading of \(name)")
        #expect(decode(image, passes: [.zxing, .wholeFrame]) == [exact.expected], "\(name) is given once")
        #expect(decode(image) == [exact.expected])
    }
}
