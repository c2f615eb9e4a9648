import Foundation
import QRScanner
import Testing

/// A live 1280x720 camera panning over a scene with no code: zxing-cpp's default call scans at least one of
/// every two frames there (`LiveCadence`), so a code it reads that comes into view is scanned at most one
/// frame after it appears, whichever frame of that cadence it appears on.
@Suite("A code entering a panning view", .timeLimit(.minutes(2)))
struct PanningViewTests {
    static let width = 1280, height = 720
    /// Pixels the scene moves by from one frame to the next.
    static let panStep = 3

    @Test func isScannedAtMostOneFrameAfterAppearingWhateverTheFrameItAppearsOn() throws {
        let photo = try #require(Fixtures.realPhotos.first { $0.image.lastPathComponent == "qrcode-3-01.pgm" }, "made from \(Fixtures.realPhotoFolder)")
        let code = try #require(GreyImage(contentsOf: photo.image))
        let frames = (0..<10).map { Self.frame(number: $0, with: nil) }
        // What makes the case: every frame changes (the decoder skips none as unchanged), and zxing-cpp's default
        // reads the code in each view of it.
        let changes = (1..<4).map { number in zip(frames[number], frames[number - 1]).count { abs(Int($0) - Int($1)) > 24 } }
        #expect(changes.allSatisfy { $0 > Self.width * Self.height / 4 }, "the panning frames differ little: \(changes)")
        for number in 0..<4 {
            let view = GreyImage(width: Self.width, height: Self.height, pixels: Self.frame(number: number, with: code))
            #expect(zxingDefaultDecodes(view).contains { photo.expected.contains($0) }, "zxing-cpp's default misses the code in view \(number)")
        }
        // The code comes into view after 1 to 6 frames of panning: at every place in zxing-cpp's cadence.
        for emptyFrames in 1...6 {
            let decoder = QRFrameDecoder(skippingUnchangedFrames: true)
            let stream = Array(frames.prefix(emptyFrames)) + (emptyFrames..<(emptyFrames + 4)).map { Self.frame(number: $0, with: code) }
            let first = stream.firstIndex { frame in
                frame.withUnsafeBufferPointer { decoder.decode(luma: $0, width: Self.width, height: Self.height) }.contains { photo.expected.contains($0) }
            }
            let delay = try #require(first.map { $0 - emptyFrames }, "after \(emptyFrames) frames of panning the code is never scanned")
            #expect(delay <= 1, "after \(emptyFrames) frames of panning the code is scanned on its \(delay + 1)th frame in view")
        }
    }

    /// The scene the camera pans over: grey blocks of 4 pixels, wider than a frame by 40 steps of the pan.
    static let sceneWidth = width + 40 * panStep
    static let scene: [UInt8] = {
        var pixels = [UInt8](repeating: 0, count: sceneWidth * height)
        for row in 0..<height {
            for column in 0..<sceneWidth {
                // A cheap hash of the block's place: levels 40 to 215.
                var state = UInt32(truncatingIfNeeded: (column / 4) &* 73_856_093 ^ (row / 4) &* 19_349_663)
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[row * sceneWidth + column] = UInt8(40 + Int(state >> 24) % 176)
            }
        }
        return pixels
    }()

    /// Frame `number` of the pan: the scene moved left by `panStep` pixels a frame, and the photo (if any) on
    /// it, moving with it.
    static func frame(number: Int, with photo: GreyImage?) -> [UInt8] {
        let shift = number * panStep
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            pixels += scene[(row * sceneWidth + shift)..<(row * sceneWidth + shift + width)]
        }
        guard let photo else { return pixels }
        let left = width - photo.width - 40 - shift, top = (height - photo.height) / 2
        for row in 0..<photo.height {
            let start = (top + row) * width + left
            pixels.replaceSubrange(start..<(start + photo.width), with: photo.pixels[(row * photo.width)..<((row + 1) * photo.width)])
        }
        return pixels
    }
}
