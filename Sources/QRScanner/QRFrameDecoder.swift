/// Turns one grey frame into the payloads of the QR codes it shows.
///
/// It reads every code either library reads on its own, by construction (docs/qr.md):
/// 1. zxing-cpp's own default call (`ReadBarcodes`, its default hints, QR only) on every frame: whatever the
///    frame, every code that call reads is read, with all the codes it reads in the frame;
/// 2. libzbar's whole-frame scan, as its default does it, on every frame the first read nothing in: whatever
///    the frame, every code libzbar reads there is read;
/// then, on those frames too, the decoder's own passes, each adding what it reads (every code counts):
/// 3. zxing-cpp over the frame at half size, where the finder search at half size sees a finder pattern;
/// 4. the full-resolution finder triples squared up on their three finders (one affine map), or twice
///    the size for modules of 3 pixels or less: tilted and bent codes both libraries miss;
/// 5. finder patterns at half resolution with light and dark swapped; zbar scans the region of each
///    triple that shows a timing pattern: light-on-dark codes, which neither library reads.
/// On a live stream (`LiveCadence`), pass 1 runs on every changed frame while a code is in view and on at
/// least one of every two frames while none is, pass 2 on a schedule (every code it reads in a held view is
/// read within 10 frames), passes 4 and 5 at most every 4th frame while no code is in view, trying one
/// region: the next frame is another chance.
/// Not thread-safe: one per decoding thread.
public final class QRFrameDecoder {
    /// The passes, in the order they run.
    public enum Pass: String, CaseIterable, Sendable {
        case zxing, wholeFrame, zxingHalf, squaredUp, lightOnDark
    }

    /// The decoder's own passes: beyond what either library reads on its own.
    private static let ownPasses: [Pass] = [.zxingHalf, .squaredUp, .lightOnDark]
    /// On a stream zxing-cpp's default call reads every frame, scaled down too: its half-size pass is left out.
    private static let liveOwnPasses: [Pass] = [.squaredUp, .lightOnDark]

    /// Frames whose longest side is larger than this get pass 3: zxing-cpp searches a scaled-down copy only
    /// above it (its `downscaleThreshold`), and a smaller frame's codes have small modules.
    private static let halfSizeAbove = 500

    private let scanner = ZBarImageScanner()
    private let zxing = ZXingImageScanner()
    /// One finder search per scale: each keeps its buffers at its frame size from frame to frame.
    private var halfLocator = FinderPatternLocator()
    private var fullLocator = FinderPatternLocator()
    private var changes: FrameChangeDetector?
    private var cadence: LiveCadence?
    private var lastPayloads: [[UInt8]] = []
    /// Whether the own passes read the last decoded frame, on a live stream: they run on the next frame too.
    private var ownPassesReadLast = false
    /// Regions zbar tries per frame in passes 4 and 5, the most often crossed first. On a live stream the
    /// next frame is a new chance: a failed attempt on a bent, dense or half-covered code costs 20 ms and more.
    private let regionsPerPass: Int
    /// The current frame's half-size copy, its credible dark-on-light finder patterns (at full-resolution
    /// scale: at half size, then with those at full size) and its finder patterns at full size; each made
    /// once however many passes need them.
    private var half: GreyPlane?
    private var halfMarks: [FinderPatternLocator.Finder]?
    private var marks: [FinderPatternLocator.Finder]?
    private var full: [FinderPatternLocator.Finder]?

    /// `skippingUnchangedFrames`: the frames are a live stream. A frame that has not changed since the last
    /// one decoded gives that one's payloads again without being decoded, and libzbar's scan and the own
    /// passes run at `LiveCadence`'s rate.
    public init(skippingUnchangedFrames: Bool = false) {
        changes = skippingUnchangedFrames ? FrameChangeDetector() : nil
        cadence = skippingUnchangedFrames ? LiveCadence() : nil
        regionsPerPass = skippingUnchangedFrames ? 1 : FinderTriples.maximumRegions
    }

    /// The bytes of each QR code in the frame (`width * height` luma bytes, row by row), each once, as the
    /// code holds them. `passes`: these alone, each run, in this order (the benchmark measures each on its own).
    public func decode(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, passes: [Pass]? = nil) -> [[UInt8]] {
        precondition(luma.count >= width * height, "a frame holds width * height bytes")
        defer {
            half = nil
            halfMarks = nil
            marks = nil
            full = nil
        }
        var payloads: [[UInt8]] = []
        if let passes {
            for pass in passes {
                Self.add(run(pass, luma, width: width, height: height), to: &payloads)
            }
        } else if cadence != nil {
            payloads = decodeLive(luma, width: width, height: height)
        } else {
            payloads = run(.zxing, luma, width: width, height: height)
            // zxing-cpp read nothing: libzbar's scan and every own pass, each adding what it reads.
            if payloads.isEmpty {
                for pass in [Pass.wholeFrame] + Self.ownPasses {
                    Self.add(run(pass, luma, width: width, height: height), to: &payloads)
                }
            }
        }
        lastPayloads = payloads
        return payloads
    }

    /// A frame of a live stream: each library's call and the own passes run on it when `LiveCadence` says
    /// they are due; an unchanged frame gives the last one's payloads, with what a call due on that view adds.
    private func decodeLive(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        guard var cadence, var changes else { return [] }
        defer {
            self.cadence = cadence
            self.changes = changes
        }
        cadence.frameArrived(withCode: !lastPayloads.isEmpty)
        let changed = changes.hasChanged(luma, width: width, height: height)
        if changed {
            cadence.viewChanged()
        }
        var payloads = changed ? [] : lastPayloads
        let zxingRan = cadence.zxingDue
        if zxingRan {
            cadence.zxingScanned()
            Self.add(run(.zxing, luma, width: width, height: height), to: &payloads)
        }
        if cadence.zbarDue {
            cadence.zbarScanned()
            Self.add(run(.wholeFrame, luma, width: width, height: height), to: &payloads)
        }
        guard changed, zxingRan, payloads.isEmpty else {
            if changed, zxingRan {
                ownPassesReadLast = false
            }
            return payloads
        }
        if cadence.ownPassesDue(readingLast: ownPassesReadLast) {
            cadence.ownPassesRan()
            for pass in Self.liveOwnPasses {
                Self.add(run(pass, luma, width: width, height: height), to: &payloads)
            }
        }
        ownPassesReadLast = !payloads.isEmpty
        return payloads
    }

    /// Adds each payload not already there, in order.
    private static func add(_ found: [[UInt8]], to payloads: inout [[UInt8]]) {
        for payload in found where !payloads.contains(payload) {
            payloads.append(payload)
        }
    }

    private func run(_ pass: Pass, _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [[UInt8]] {
        switch pass {
        case .zxing:
            return zxing.scan(luma, width: width, height: height, .libraryDefault)
        case .wholeFrame:
            return scanner.scan(luma, width: width, height: height)
        case .zxingHalf:
            // Without a finder pattern at half size the modules are too small there for this pass.
            guard max(width, height) > Self.halfSizeAbove, !halfSizeMarks(luma, width: width, height: height).isEmpty, let plane = half else { return [] }
            return plane.pixels.withUnsafeBufferPointer { zxing.scan($0, width: plane.width, height: plane.height, .halfSize) }
        case .lightOnDark:
            return lightOnDarkPass(luma, width: width, height: height)
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

    /// Three distinct finder patterns: the corners of a code to square up.
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
