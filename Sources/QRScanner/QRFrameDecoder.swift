/// Turns one grey frame into the payloads of the QR codes it shows.
///
/// A full zbar pass over a frame costs tens of milliseconds on a cluttered 720p scene,
/// so cheap passes come first, each only when the ones before found nothing:
/// 1. finder patterns at full resolution; zbar scans the region of each triple that can
///    be a code's corners and shows a timing pattern (every third line, then every line);
/// 2. finder patterns at half resolution, where noise, JPEG blocks, a screen's pixel
///    grid and blur average out; zbar scans the region at both scales;
/// 3. the same with light and dark swapped, for light-on-dark codes;
/// 4. pass 1's regions again, twice the size for small modules, then squared up on
///    their three finders for a tilted or curved code;
/// 5. zbar over the whole frame, as libzbar's default does it, so nothing it would
///    read is lost. On a live stream that pass runs at a bounded cadence.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    private let scanner = ZBarImageScanner()
    private var locator = FinderPatternLocator()
    private var changes: FrameChangeDetector?
    private var fullScans: FullScanCadence?
    private var lastPayloads: [[UInt8]] = []
    /// Whether a pass on the current frame saw a finder pattern worth pairing.
    private var sawCredibleFinder = false

    /// `skippingUnchangedFrames`: the frames are a live stream. A frame that has not changed
    /// since the last one decoded gives that one's payloads again without being decoded, and
    /// the whole-frame pass runs at most at `FullScanCadence`'s rate.
    public init(skippingUnchangedFrames: Bool = false) {
        changes = skippingUnchangedFrames ? FrameChangeDetector() : nil
        fullScans = skippingUnchangedFrames ? FullScanCadence() : nil
    }

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        fullScans?.frameArrived(withCode: !lastPayloads.isEmpty)
        if changes?.hasChanged(luma, width: width, height: height) == false {
            return lastPayloads
        }
        sawCredibleFinder = false
        let regions = finderRegions(luma, width: width, height: height)
        var payloads = decodeRegions(regions) { region in
            // A copy, not zbar's crop: zbar binarizes the whole image it is given before decoding a QR code.
            // Every third line first, at a third of the cost; every line when that fails (it loses some rotated codes).
            self.scan(GreyPlane(region.area, of: luma, width: width), densities: [3, 1])
        }
        if payloads.isEmpty {
            payloads = halfScalePasses(luma, width: width, height: height)
        }
        if payloads.isEmpty {
            payloads = decodeRegions(regions) { region in
                if region.module <= 3, let found = self.scan(GreyPlane(region.area, of: luma, width: width).doubled(), densities: [1]) {
                    return found
                }
                let upright = GreyPlane.rectified(luma, width: width, height: height, corner: region.corner, right: region.right, down: region.down, module: region.module)
                return self.scan(upright, densities: [1])
            }
        }
        // zbar reads no code without three finder patterns: where no pass saw even one, its whole-frame pass would find nothing.
        if payloads.isEmpty, sawCredibleFinder, fullScans?.mayScan() ?? true {
            scanner.setDensity(1)
            payloads = scanner.scan(luma, width: width, height: height)
        }
        lastPayloads = payloads
        return payloads
    }

    /// The plausible code regions around full-resolution finder patterns.
    private func finderRegions(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [FinderTriples.CodeRegion] {
        let finders = locator.locate(luma, width: width, height: height)
        sawCredibleFinder = sawCredibleFinder || finders.contains(where: FinderTriples.isCredible)
        return FinderTriples.codeRegions(finders, width: width, height: height) {
            TimingPattern.isPlausible($0, in: luma, width: width, height: height)
        }
    }

    /// Passes 2 and 3: finder patterns on the frame at half size, dark on light and then light on dark.
    private func halfScalePasses(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        guard width >= 64, height >= 64 else { return [] }
        let half = GreyPlane.halved(luma, width: width, height: height)
        for polarity in [false, true] {
            let plane = polarity ? half.inverted() : half
            let finders = plane.pixels.withUnsafeBufferPointer { locator.locate($0, width: plane.width, height: plane.height) }
            sawCredibleFinder = sawCredibleFinder || finders.contains(where: FinderTriples.isCredible)
            let regions = plane.pixels.withUnsafeBufferPointer { pixels in
                FinderTriples.codeRegions(finders, width: plane.width, height: plane.height) {
                    TimingPattern.isPlausible($0, in: pixels, width: plane.width, height: plane.height)
                }
            }
            let found = decodeRegions(regions) { region in
                let full = region.area.scaled(by: 2, within: width, height)
                var original = GreyPlane(full, of: luma, width: width)
                if polarity { original = original.inverted() }
                return self.scan(original, densities: [1]) ?? self.scan(plane.cropped(to: region.area), densities: [1])
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Tries each region not already covered by a decoded code; the payloads in order, each once.
    private func decodeRegions(_ regions: [FinderTriples.CodeRegion], _ attempt: (FinderTriples.CodeRegion) -> [[UInt8]]?) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var decoded: [PixelRegion] = []
        for region in regions where !decoded.contains(where: region.area.overlaps) {
            guard let found = attempt(region) else { continue }
            decoded.append(region.area)
            for payload in found where !payloads.contains(payload) {
                payloads.append(payload)
            }
        }
        return payloads
    }

    /// The first density that reads something, or nil.
    private func scan(_ plane: GreyPlane, densities: [Int32]) -> [[UInt8]]? {
        plane.pixels.withUnsafeBufferPointer { pixels in
            for density in densities {
                scanner.setDensity(density)
                let found = scanner.scan(pixels, width: plane.width, height: plane.height)
                if !found.isEmpty { return found }
            }
            return nil
        }
    }
}
