/// Turns one grey frame into the payloads of the QR codes it shows.
///
/// A full zbar pass over a frame costs tens of milliseconds on a cluttered 720p scene.
/// Most frames hold no code, so a cheap look for finder patterns comes first: without
/// three that can be the corners of one code, the frame is done (zbar needs all three
/// too); with them, zbar scans only that code's region.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    private let scanner = ZBarImageScanner()
    private var locator = FinderPatternLocator()
    private var regionPixels: [UInt8] = []
    private var changes: FrameChangeDetector?
    private var lastPayloads: [[UInt8]] = []

    /// `skippingUnchangedFrames`: for a live stream, a frame that has not changed since the
    /// last one decoded gives that one's payloads again without being decoded.
    public init(skippingUnchangedFrames: Bool = false) {
        changes = skippingUnchangedFrames ? FrameChangeDetector() : nil
    }

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        if changes?.hasChanged(luma, width: width, height: height) == false {
            return lastPayloads
        }
        let finders = locator.locate(luma, width: width, height: height)
        var payloads: [[UInt8]] = []
        var decoded: [PixelRegion] = []
        for region in FinderTriples.codeRegions(finders, width: width, height: height) where !decoded.contains(where: region.overlaps) {
            // A copy, not zbar's crop: zbar binarizes the whole image it is given before decoding a QR code.
            copy(region, of: luma, width: width)
            // Every third line first, at a third of the cost; every line when that fails (it loses some rotated codes).
            let found = regionPixels.withUnsafeBufferPointer { pixels in
                scanner.setDensity(3)
                let sparse = scanner.scan(pixels, width: region.width, height: region.height)
                guard sparse.isEmpty else { return sparse }
                scanner.setDensity(1)
                return scanner.scan(pixels, width: region.width, height: region.height)
            }
            if !found.isEmpty { decoded.append(region) }
            for payload in found where !payloads.contains(payload) {
                payloads.append(payload)
            }
        }
        lastPayloads = payloads
        return payloads
    }

    private func copy(_ region: PixelRegion, of luma: UnsafeBufferPointer<UInt8>, width: Int) {
        regionPixels.removeAll(keepingCapacity: true)
        for row in region.y..<(region.y + region.height) {
            let start = row * width + region.x
            regionPixels.append(contentsOf: luma[start..<(start + region.width)])
        }
    }
}
