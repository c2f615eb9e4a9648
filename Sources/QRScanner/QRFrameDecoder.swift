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
///    read is lost; only where the passes saw three distinct finder patterns, dark on
///    light (zbar reads nothing with fewer), and on a live stream at a bounded cadence.
/// On a live stream, the pass that read the last frame goes first (the next frame most
/// likely shows the same code the same way, and the passes that failed on it cost most),
/// and fewer regions are tried per frame: the next frame is another chance.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    private enum Pass: CaseIterable {
        case finders, halfScale, lightOnDark, enlargedOrSquared, wholeFrame
    }

    private let scanner = ZBarImageScanner()
    private var locator = FinderPatternLocator()
    private var changes: FrameChangeDetector?
    private var fullScans: FullScanCadence?
    private var lastPayloads: [[UInt8]] = []
    /// The pass that read the last decoded frame, on a live stream.
    private var lastReadingPass: Pass?
    /// Regions zbar tries per pass and frame, the most often crossed first. On a live stream the next
    /// frame is a new chance: a few failed attempts on a bent or half-covered code cost 20 ms each.
    private let regionsPerPass: Int
    /// The current frame's finder regions at full resolution and its half-size copy, made once however many passes need them.
    private var fullRegions: [FinderTriples.CodeRegion]?
    private var half: GreyPlane?
    /// The credible dark-on-light finder patterns the passes saw in the current frame, at full-resolution scale.
    private var marks: [FinderPatternLocator.Finder] = []

    /// `skippingUnchangedFrames`: the frames are a live stream. A frame that has not changed
    /// since the last one decoded gives that one's payloads again without being decoded, the
    /// pass that read the last frame goes first, and the whole-frame pass runs at most at
    /// `FullScanCadence`'s rate.
    public init(skippingUnchangedFrames: Bool = false) {
        changes = skippingUnchangedFrames ? FrameChangeDetector() : nil
        fullScans = skippingUnchangedFrames ? FullScanCadence() : nil
        regionsPerPass = skippingUnchangedFrames ? 2 : FinderTriples.maximumRegions
    }

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        fullScans?.frameArrived(withCode: !lastPayloads.isEmpty)
        if changes?.hasChanged(luma, width: width, height: height) == false {
            return lastPayloads
        }
        marks = []
        defer {
            fullRegions = nil
            half = nil
        }
        var payloads: [[UInt8]] = []
        var readingPass: Pass?
        for pass in passOrder() {
            payloads = run(pass, luma, width: width, height: height)
            if !payloads.isEmpty {
                readingPass = pass
                break
            }
        }
        if changes != nil { lastReadingPass = readingPass }
        lastPayloads = payloads
        return payloads
    }

    /// The passes in their order, the one that read the last frame first. The whole-frame pass stays
    /// last: a code only it reads is read at its cadence, and every cheaper pass is tried before.
    private func passOrder() -> [Pass] {
        guard let first = lastReadingPass, first != .wholeFrame else { return Pass.allCases }
        return [first] + Pass.allCases.filter { $0 != first }
    }

    private func run(_ pass: Pass, _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        switch pass {
        case .finders:
            return decodeRegions(finderRegions(luma, width: width, height: height)) { region in
                // A copy, not zbar's crop: zbar binarizes the whole image it is given before decoding a QR code.
                // Every third line first, at a third of the cost; every line when that fails (it loses some rotated codes).
                self.scan(GreyPlane(region.area, of: luma, width: width), densities: [3, 1])
            }
        case .halfScale, .lightOnDark:
            return halfScalePass(inverted: pass == .lightOnDark, luma, width: width, height: height)
        case .enlargedOrSquared:
            // Two scans a region, each of an image larger than the region: on a stream, the likeliest region only.
            return decodeRegions(finderRegions(luma, width: width, height: height), limit: changes == nil ? regionsPerPass : 1) { region in
                if region.module <= 3, let found = self.scan(GreyPlane(region.area, of: luma, width: width).doubled(), densities: [1]) {
                    return found
                }
                let upright = GreyPlane.rectified(luma, width: width, height: height, corner: region.corner, right: region.right, down: region.down, module: region.module)
                return self.scan(upright, densities: [1])
            }
        case .wholeFrame:
            guard Self.mayHoldCode(marks), fullScans?.mayScan(marks: marks) ?? true else { return [] }
            scanner.setDensity(1)
            return scanner.scan(luma, width: width, height: height)
        }
    }

    /// The plausible code regions around full-resolution finder patterns.
    private func finderRegions(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [FinderTriples.CodeRegion] {
        if let fullRegions { return fullRegions }
        let finders = locator.locate(luma, width: width, height: height)
        marks += finders.filter(FinderTriples.isCredible)
        let regions = FinderTriples.codeRegions(finders, width: width, height: height) {
            TimingPattern.isPlausible($0, in: luma, width: width, height: height)
        }
        fullRegions = regions
        return regions
    }

    /// Passes 2 and 3: finder patterns on the frame at half size, dark on light or light on dark.
    private func halfScalePass(inverted: Bool, _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        guard width >= 64, height >= 64 else { return [] }
        let halved = half ?? GreyPlane.halved(luma, width: width, height: height)
        half = halved
        let plane = inverted ? halved.inverted() : halved
        let finders = plane.pixels.withUnsafeBufferPointer { locator.locate($0, width: plane.width, height: plane.height) }
        if !inverted {
            marks += finders.filter(FinderTriples.isCredible).map { FinderPatternLocator.Finder(x: 2 * $0.x, y: 2 * $0.y, module: 2 * $0.module, hits: $0.hits) }
        }
        let regions = plane.pixels.withUnsafeBufferPointer { pixels in
            FinderTriples.codeRegions(finders, width: plane.width, height: plane.height) {
                TimingPattern.isPlausible($0, in: pixels, width: plane.width, height: plane.height)
            }
        }
        return decodeRegions(regions) { region in
            let full = region.area.scaled(by: 2, within: width, height)
            var original = GreyPlane(full, of: luma, width: width)
            if inverted { original = original.inverted() }
            return self.scan(original, densities: [1]) ?? self.scan(plane.cropped(to: region.area), densities: [1])
        }
    }

    /// zbar reads no code without three finder patterns. Where the passes saw fewer than three distinct
    /// ones, dark on light at either scale, its whole-frame pass would find nothing: an empty scene's few
    /// square marks (or one mark seen at both scales) do not pay for it.
    private static func mayHoldCode(_ marks: [FinderPatternLocator.Finder]) -> Bool {
        FinderTriples.distinct(marks).count >= 3
    }

    /// Tries each region not already covered by a decoded code; the payloads in order, each once.
    private func decodeRegions(
        _ regions: [FinderTriples.CodeRegion], limit: Int? = nil, _ attempt: (FinderTriples.CodeRegion) -> [[UInt8]]?
    ) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var decoded: [PixelRegion] = []
        for region in regions.prefix(limit ?? regionsPerPass) where !decoded.contains(where: region.area.overlaps) {
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
