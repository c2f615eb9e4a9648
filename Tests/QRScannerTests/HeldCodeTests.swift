import Foundation
import QRScanner
import Testing

/// A code only libzbar reads, held in view of a live 1280x720 camera: libzbar's whole-frame scan runs on a
/// schedule, so the code is scanned within 10 frames of appearing, whenever it appears.
@Suite("A held code only libzbar reads", .timeLimit(.minutes(2)))
struct HeldCodeTests {
    static let width = 1280, height = 720

    /// qrcode-3's photo 23 (a low-contrast code) at twice its size: zxing-cpp's default call and the decoder's own
    /// passes read nothing in it, libzbar does.
    @Test func isScannedWithinTenFramesOfAppearingWhateverTheFrameItAppearsOn() throws {
        let photo = try #require(Fixtures.realPhotos.first { $0.image.lastPathComponent == "qrcode-3-23.pgm" }, "made from \(Fixtures.realPhotoFolder)")
        let code = try #require(GreyImage(contentsOf: photo.image).map(Self.doubled))
        let background = UInt8(code.pixels.reduce(0) { $0 + Int($1) } / code.pixels.count)
        let empty = Self.frame(number: 0, background: background, with: nil)
        let held = (1...20).map { Self.frame(number: $0, background: background, with: code) }
        // What makes the case: only libzbar reads these views (checked on a few of them).
        for view in held.prefix(3) {
            let image = GreyImage(width: Self.width, height: Self.height, pixels: view)
            #expect(zxingDefaultDecodes(image).isEmpty, "zxing-cpp's default reads the held code: not a case for libzbar's schedule")
            #expect(view.withUnsafeBufferPointer { QRFrameDecoder().decode(luma: $0, width: Self.width, height: Self.height, passes: [.zxingHalf, .squaredUp, .lightOnDark]) }.isEmpty)
            #expect(zbarDefaultDecodes(image).contains { photo.expected.contains($0) }, "libzbar's default reads the held code")
        }
        // The code appears after 1 to 10 empty frames: at every place in libzbar's schedule.
        for emptyFrames in 1...10 {
            let decoder = QRFrameDecoder(skippingUnchangedFrames: true)
            let stream = Array(repeating: empty, count: emptyFrames) + held
            let first = stream.firstIndex { frame in
                frame.withUnsafeBufferPointer { decoder.decode(luma: $0, width: Self.width, height: Self.height) }.contains { photo.expected.contains($0) }
            }
            let delay = try #require(first.map { $0 - emptyFrames }, "after \(emptyFrames) empty frames the held code is never scanned")
            #expect(delay < 10, "after \(emptyFrames) empty frames the held code is scanned on its \(delay + 1)th frame in view")
        }
    }

    /// The photo's own grey with sensor noise, the photo (if any) pasted in its middle with a hand's shake of up to 3 pixels.
    static func frame(number: Int, background: UInt8, with photo: GreyImage?) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        var state = UInt32(truncatingIfNeeded: number &* 2_654_435_761 &+ 1)
        for index in pixels.indices {
            // A cheap generator's noise of -2 to 2 levels.
            state = state &* 1_664_525 &+ 1_013_904_223
            pixels[index] = UInt8(clamping: Int(background) - 2 + Int(state >> 29) % 5)
        }
        guard let photo else { return pixels }
        let left = (width - photo.width) / 2 + Int(state >> 8) % 7 - 3, top = (height - photo.height) / 2 + Int(state >> 16) % 7 - 3
        for row in 0..<photo.height {
            let start = (top + row) * width + left
            pixels.replaceSubrange(start..<(start + photo.width), with: photo.pixels[(row * photo.width)..<((row + 1) * photo.width)])
        }
        return pixels
    }

    /// Twice the size, each pixel four.
    static func doubled(_ image: GreyImage) -> GreyImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(4 * image.pixels.count)
        for row in 0..<(2 * image.height) {
            for column in 0..<(2 * image.width) {
                pixels.append(image.pixels[(row / 2) * image.width + column / 2])
            }
        }
        return GreyImage(width: 2 * image.width, height: 2 * image.height, pixels: pixels)
    }
}
