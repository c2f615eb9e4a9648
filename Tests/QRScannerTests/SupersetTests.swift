import Foundation
import QRScanner
import Testing

/// Frame by frame, never a total that could hide a frame: the decoder reads every code zxing-cpp's default call
/// reads, and where that reads nothing, every code libzbar's default scan reads. The references are the
/// benchmark's loops (`ReferenceLoops`), programs of their own.
@Suite("Every code either library's default reads, on every frame", .timeLimit(.minutes(5)))
struct SupersetTests {
    /// realqr: each development photo as a webcam gives it; webcam: each fitted into a 640x480, 1280x720 or
    /// 1920x1080 frame; sweep: each turned by four multiples of 15 degrees 90 apart (every multiple about 23 times;
    /// `make bench-qr` checks every photo at all 24); mosaics: 2 to 12 photos pasted side by side.
    @Test(arguments: [("realqr", [String]()), ("webcam", []), ("sweep", ["4"]), ("mosaics", [])])
    func theDevelopmentPhotos(set: String, arguments: [String]) throws {
        let frames = Fixtures.photoFrames(set, arguments)
        #expect(frames.count >= 44, "\(set) was made from \(Fixtures.realPhotoFolder) (the repository's ../shared/fixtures/realqr)")
        let read = try checkEveryFrame(frames.map(\.path))
        // The property is not empty: the libraries read codes in most of these frames.
        #expect(read.zxing > frames.count / 2, "\(set): zxing-cpp read codes in \(read.zxing) of \(frames.count) frames")
        if set == "mosaics" {
            #expect(read.most >= 6, "a mosaic where zxing-cpp reads 6 codes or more")
        }
    }

    @Test func theGeneratedSets() throws {
        let frames = Fixtures.generatedFrames
        #expect(frames.count >= 72 + 36)
        let read = try checkEveryFrame(frames)
        #expect(read.zbarWhereZXingReadsNothing > 0, "frames only libzbar reads are among them")
    }

    /// What the references read: frames in which zxing-cpp read a code, codes libzbar read where zxing-cpp read
    /// none, the most codes zxing-cpp read in one frame.
    struct Counts {
        var zxing = 0
        var zbarWhereZXingReadsNothing = 0
        var most = 0
    }

    private func checkEveryFrame(_ frames: [String]) throws -> Counts {
        let zxing = try ReferenceLoops.zxing(frames)
        let unreadByZXing = frames.filter { zxing[$0]?.isEmpty ?? false }
        let zbar = try ReferenceLoops.zbar(unreadByZXing, binary: true)
        let zbarText = try ReferenceLoops.zbar(unreadByZXing, binary: false)
        var counts = Counts()
        for frame in frames {
            let name = URL(fileURLWithPath: frame).lastPathComponent
            let image = try #require(GreyImage(contentsOf: URL(fileURLWithPath: frame)))
            let reference = try #require(zxing[frame], "zxing_loop gave no line for \(name)")
            let ours = image.pixels.withUnsafeBufferPointer { QRFrameDecoder().decode(luma: $0, width: image.width, height: image.height) }
            for code in reference where !ours.contains(code) {
                Issue.record("\(name): zxing-cpp's default call reads \(Self.shown(code)), the decoder does not (it reads \(ours.map(Self.shown)))")
            }
            counts.zxing += reference.isEmpty ? 0 : 1
            counts.most = max(counts.most, reference.count)
            guard reference.isEmpty else { continue }
            let zbarCodes = try #require(zbar[frame], "zbar_loop gave no line for \(name)")
            // Binary mode only gives the bytes unconverted: it reads every code the text mode reads.
            #expect(zbarCodes.count >= zbarText[frame]?.count ?? 0, "\(name): libzbar's binary mode reads fewer codes than its default")
            for code in zbarCodes where !ours.contains(code) {
                Issue.record("\(name): zxing-cpp reads nothing, libzbar's default scan reads \(Self.shown(code)), the decoder does not")
            }
            counts.zbarWhereZXingReadsNothing += zbarCodes.count
        }
        return counts
    }

    /// A payload in a failure message: its first bytes, printable ASCII as it is, the rest as hex.
    private static func shown(_ code: [UInt8]) -> String {
        let head = code.prefix(40).map { (0x20..<0x7f).contains($0) ? String(UnicodeScalar($0)) : String(format: "\\x%02x", $0) }.joined()
        return "\"\(head)\(code.count > 40 ? "..." : "")\" (\(code.count) bytes)"
    }
}
