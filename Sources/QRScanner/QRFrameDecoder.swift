/// Turns one grey frame into the payloads of the QR codes it shows.
///
/// The passes run cheapest first, each only when the ones before found nothing (`make bench-qr`, docs/qr.md):
/// 1. zxing-cpp over the frame at half size, where the finder search at half size sees a finder pattern:
///    most codes a camera shows, at a quarter of the cost;
/// 2. zxing-cpp over the whole frame at full resolution (no scaled-down search: pass 1 is that);
/// 3. zbar over the whole frame, as libzbar's default does it, so no code it reads is lost; only where
///    three distinct dark-on-light finder patterns are in view (zbar reads nothing with fewer);
/// 4. the full-resolution finder triples squared up on their three finders (one affine map), or twice
///    the size for modules of 3 pixels or less: tilted and bent codes both libraries miss;
/// 5. finder patterns at half resolution with light and dark swapped; zbar scans the region of each
///    triple that shows a timing pattern: light-on-dark codes, which neither library reads.
/// On a live stream, the pass that read the last frame goes first (the next frame most likely shows the
/// same code the same way); passes 2 and 3, the full-resolution scans, run only where three distinct finder
/// patterns are in view and at a bounded cadence (`FullScanCadence`), pass 2 on every frame at 500 pixels and
/// less; passes 4 and 5 run every other frame, not while a code is likely in view, and try one region: the
/// next frame is another chance.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    /// The passes, in the order they run.
    public enum Pass: String, CaseIterable, Sendable {
        case zxingHalf, zxing, wholeFrame, squaredUp, lightOnDark
    }

    /// Frames whose longest side is larger than this get pass 1, and on a stream pass 2 only at its cadence;
    /// smaller ones go to pass 2 at once, as zxing-cpp searches a scaled-down copy only above it (its
    /// `downscaleThreshold`): a small frame's codes have small modules, and pass 2 costs little there.
    private static let halfSizeAbove = 500

    private let scanner = ZBarImageScanner()
    private let zxing = ZXingImageScanner()
    /// One finder search per scale: each keeps its buffers at its frame size from frame to frame.
    private var halfLocator = FinderPatternLocator()
    private var fullLocator = FinderPatternLocator()
    private var changes: FrameChangeDetector?
    private var fullScans: FullScanCadence?
    private var lastPayloads: [[UInt8]] = []
    /// The pass that read the last decoded frame, on a live stream.
    private var lastReadingPass: Pass?
    /// Regions zbar tries per frame in passes 4 and 5, the most often crossed first. On a live stream the
    /// next frame is a new chance: a failed attempt on a bent, dense or half-covered code costs 20 ms and more.
    private let regionsPerPass: Int
    /// The current frame's half-size copy, its credible dark-on-light finder patterns (at full-resolution
    /// scale: at half size, then with those at full size), its finder patterns at full size, and whether it gets
    /// the full-resolution scans; each made once however many passes need them.
    private var half: GreyPlane?
    private var halfMarks: [FinderPatternLocator.Finder]?
    private var marks: [FinderPatternLocator.Finder]?
    private var full: [FinderPatternLocator.Finder]?
    private var fullResolutionDue: Bool?
    /// On a stream, passes 4 and 5 run on every other decoded frame: a camera panning over a scene changes
    /// every frame, and the next one is another chance.
    private var ownPassesDue = true

    /// `skippingUnchangedFrames`: the frames are a live stream. A frame that has not changed
    /// since the last one decoded gives that one's payloads again without being decoded, the
    /// pass that read the last frame goes first, and the full-resolution scans run at most at
    /// `FullScanCadence`'s rate.
    public init(skippingUnchangedFrames: Bool = false) {
        changes = skippingUnchangedFrames ? FrameChangeDetector() : nil
        fullScans = skippingUnchangedFrames ? FullScanCadence() : nil
        regionsPerPass = skippingUnchangedFrames ? 1 : FinderTriples.maximumRegions
    }

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row), each once, as the
    /// code holds them. `passes`: these alone, in this order (the benchmark measures each pass on its own).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, passes: [Pass]? = nil) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        fullScans?.frameArrived(withCode: !lastPayloads.isEmpty)
        if changes?.hasChanged(luma, width: width, height: height) == false {
            return lastPayloads
        }
        defer {
            half = nil
            halfMarks = nil
            marks = nil
            full = nil
            fullResolutionDue = nil
        }
        var payloads: [[UInt8]] = []
        var readingPass: Pass?
        let large = max(width, height) > Self.halfSizeAbove
        for pass in passes ?? passOrder() where isDue(pass, large: large) {
            for payload in run(pass, luma, width: width, height: height) where !payloads.contains(payload) {
                payloads.append(payload)
            }
            if !payloads.isEmpty {
                readingPass = pass
                break
            }
        }
        if changes != nil {
            lastReadingPass = readingPass
            ownPassesDue.toggle()
        }
        lastPayloads = payloads
        return payloads
    }

    /// The passes in their order, the one that read the last frame first. The whole-frame zbar pass never
    /// goes first: a code only it reads is read at its cadence, and every cheaper pass is tried before.
    private func passOrder() -> [Pass] {
        guard let first = lastReadingPass, first != .wholeFrame else { return Pass.allCases }
        return [first] + Pass.allCases.filter { $0 != first }
    }

    /// Whether a pass runs on this frame: always on single frames; on a stream, the full-resolution scans only when
    /// their cadence may let them (the finder search that gates them is skipped otherwise), zxing-cpp's also when
    /// it read the last frame and on every frame at 500 pixels and less; passes 4 and 5 every other frame and not while a code another pass read is likely still
    /// in view (a dense code's many finder-like marks cost 50 to 180 ms to pair), unless one of them read the last frame.
    private func isDue(_ pass: Pass, large: Bool) -> Bool {
        guard changes != nil else { return true }
        switch pass {
        case .zxingHalf: return true
        case .zxing: return !large || pass == lastReadingPass || fullScans?.mayBeDue ?? true
        case .wholeFrame: return fullResolutionDue ?? fullScans?.mayBeDue ?? true
        case .squaredUp, .lightOnDark: return pass == lastReadingPass || (ownPassesDue && fullScans?.codeLikelyInView == false)
        }
    }

    private func run(_ pass: Pass, _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        switch pass {
        case .zxing:
            let gated = changes != nil && max(width, height) > Self.halfSizeAbove && pass != lastReadingPass
            guard !gated || fullResolutionScansDue(luma, width: width, height: height) else { return [] }
            return zxing.scan(luma, width: width, height: height, downscaled: false)
        case .zxingHalf:
            // Without a finder pattern at half size the modules are too small there: pass 2 reads those.
            guard max(width, height) > Self.halfSizeAbove, !halfSizeMarks(luma, width: width, height: height).isEmpty, let plane = half else { return [] }
            return plane.pixels.withUnsafeBufferPointer { zxing.scan($0, width: plane.width, height: plane.height, downscaled: true) }
        case .lightOnDark:
            return lightOnDarkPass(luma, width: width, height: height)
        case .wholeFrame:
            guard fullResolutionScansDue(luma, width: width, height: height) else { return [] }
            return scanner.scan(luma, width: width, height: height)
        case .squaredUp:
            // Nothing to square up without three finders in view.
            guard Self.mayHoldCode(darkMarks(luma, width: width, height: height)) else { return [] }
            let regions = FinderTriples.codeRegions(fullFinders(luma, width: width, height: height), width: width, height: height) {
                TimingPattern.isPlausible($0, in: luma, width: width, height: height)
            }
            // Two scans a region, each of an image larger than the region.
            return decodeRegions(regions, limit: regionsPerPass) { region in
                if region.module <= 3, let found = self.scan(GreyPlane(region.area, of: luma, width: width).doubled()) {
                    return found
                }
                let upright = GreyPlane.rectified(luma, width: width, height: height, corner: region.corner, right: region.right, down: region.down, module: region.module)
                return self.scan(upright)
            }
        }
    }

    /// Whether this frame gets the full-resolution scans (zxing-cpp, then zbar over the whole frame), decided
    /// once a frame: only where three distinct finder patterns are in view, and on a stream at `FullScanCadence`'s rate.
    private func fullResolutionScansDue(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> Bool {
        if let fullResolutionDue { return fullResolutionDue }
        let marks = darkMarks(luma, width: width, height: height)
        let due = Self.mayHoldCode(marks) && (fullScans?.mayScan(marks: marks) ?? true)
        fullResolutionDue = due
        return due
    }

    /// The frame at half size (each pixel the mean of four), made once a frame: sensor noise, JPEG blocks,
    /// a screen's pixel grid and blur average out, and the finder search costs a quarter.
    private func halved(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> GreyPlane? {
        guard width >= 64, height >= 64 else { return nil }
        if let half { return half }
        half = GreyPlane.halved(luma, width: width, height: height)
        return half
    }

    /// The credible dark-on-light finder patterns in view, at full-resolution scale; found once a frame. At half
    /// size first (a quarter of the cost); at full size too where that shows fewer than three (small modules).
    private func darkMarks(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [FinderPatternLocator.Finder] {
        if let marks { return marks }
        var found = halfSizeMarks(luma, width: width, height: height)
        if !Self.mayHoldCode(found) {
            found += fullFinders(luma, width: width, height: height).filter(FinderTriples.isCredible)
        }
        marks = found
        return found
    }

    /// The credible dark-on-light finder patterns at half size, at full-resolution scale; found once a frame.
    private func halfSizeMarks(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [FinderPatternLocator.Finder] {
        if let halfMarks { return halfMarks }
        var found: [FinderPatternLocator.Finder] = []
        if let plane = halved(luma, width: width, height: height) {
            let finders = plane.pixels.withUnsafeBufferPointer { halfLocator.locate($0, width: plane.width, height: plane.height) }
            found = finders.filter(FinderTriples.isCredible).map { FinderPatternLocator.Finder(x: 2 * $0.x, y: 2 * $0.y, module: 2 * $0.module, hits: $0.hits) }
        }
        halfMarks = found
        return found
    }

    /// The finder patterns at full resolution; found once a frame.
    private func fullFinders(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [FinderPatternLocator.Finder] {
        if let full { return full }
        let finders = fullLocator.locate(luma, width: width, height: height)
        full = finders
        return finders
    }

    /// Pass 5: finder patterns on the frame at half size with light and dark swapped.
    private func lightOnDarkPass(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        guard let plane = halved(luma, width: width, height: height)?.inverted() else { return [] }
        let finders = plane.pixels.withUnsafeBufferPointer { halfLocator.locate($0, width: plane.width, height: plane.height) }
        let regions = plane.pixels.withUnsafeBufferPointer { pixels in
            FinderTriples.codeRegions(finders, width: plane.width, height: plane.height) {
                TimingPattern.isPlausible($0, in: pixels, width: plane.width, height: plane.height)
            }
        }
        return decodeRegions(regions, limit: regionsPerPass) { region in
            let full = region.area.scaled(by: 2, within: width, height)
            return self.scan(GreyPlane(full, of: luma, width: width).inverted()) ?? self.scan(plane.cropped(to: region.area))
        }
    }

    /// zbar reads no code without three finder patterns. Where fewer than three distinct ones are in view,
    /// its whole-frame pass would find nothing: an empty scene's few square marks do not pay for it.
    private static func mayHoldCode(_ marks: [FinderPatternLocator.Finder]) -> Bool {
        FinderTriples.distinct(marks).count >= 3
    }

    /// Tries each region not already covered by a decoded code; the payloads in order, each once.
    private func decodeRegions(
        _ regions: [FinderTriples.CodeRegion], limit: Int, _ attempt: (FinderTriples.CodeRegion) -> [[UInt8]]?
    ) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var decoded: [PixelRegion] = []
        for region in regions.prefix(limit) where !decoded.contains(where: region.area.overlaps) {
            guard let found = attempt(region) else { continue }
            decoded.append(region.area)
            for payload in found where !payloads.contains(payload) {
                payloads.append(payload)
            }
        }
        return payloads
    }

    /// What zbar reads in a region's copy (a copy, not zbar's crop, for zbar binarizes the whole
    /// image it is given), or nil.
    private func scan(_ plane: GreyPlane) -> [[UInt8]]? {
        plane.pixels.withUnsafeBufferPointer { pixels in
            let found = scanner.scan(pixels, width: plane.width, height: plane.height)
            return found.isEmpty ? nil : found
        }
    }
}
