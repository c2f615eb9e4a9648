/// When a live stream pays for each pass. The budget comes from the stream, not from one frame: a camera
/// panning over a scene with no code changes every frame, and a code held in view is in many frames.
///
/// Each library's call runs on a view it has not scanned (a changed frame, or an unchanged one after a
/// changed frame it skipped), at most once every so many frames:
/// - zxing-cpp's default call: on every such frame while a code was read in the last `quietAfterCode` frames
///   (a code in view: each frame of it read), else on at least one of every `zxingIntervalWithoutCode` frames.
///   So a code zxing-cpp reads in two frames in a row, held or entering, is read in the second at the latest.
/// - libzbar's whole-frame scan (40 ms and more at 720p over clutter, seven times zxing-cpp's): every
///   `zbarInterval` frames, so a code only libzbar reads, held in view, is scanned at most `zbarInterval - 1`
///   frames after it appears.
/// - the decoder's own passes, on a changed frame zxing-cpp read nothing in: at most once every
///   `ownPassesEvery` frames while no code was read in the last `quietAfterCode` frames (a dense code's many
///   finder-like marks cost 50 to 180 ms to pair), and on every such frame while one of them reads.
struct LiveCadence {
    static let zxingIntervalWithoutCode = 2
    static let zbarInterval = 10
    static let quietAfterCode = 15
    static let ownPassesEvery = 4

    private var framesSinceZXing = zxingIntervalWithoutCode
    private var viewScannedByZXing = false
    private var framesSinceZBar = zbarInterval
    /// Whether libzbar has scanned the view of the last decoded frame (an unchanged frame shows that view).
    private var viewScannedByZBar = false
    private var framesSinceOwnPasses = ownPassesEvery
    private var framesSinceCode = quietAfterCode

    /// Counts a frame of the stream, decoded or not; `withCode`: the last decoded frame showed a code.
    mutating func frameArrived(withCode: Bool) {
        framesSinceZXing += 1
        framesSinceZBar += 1
        framesSinceOwnPasses += 1
        framesSinceCode = withCode ? 0 : framesSinceCode + 1
    }

    /// The frame shows a view neither library has scanned.
    mutating func viewChanged() {
        viewScannedByZXing = false
        viewScannedByZBar = false
    }

    private var codeLikelyInView: Bool {
        framesSinceCode < Self.quietAfterCode
    }

    var zxingDue: Bool {
        !viewScannedByZXing && (codeLikelyInView || framesSinceZXing >= Self.zxingIntervalWithoutCode)
    }

    mutating func zxingScanned() {
        framesSinceZXing = 0
        viewScannedByZXing = true
    }

    var zbarDue: Bool {
        !viewScannedByZBar && framesSinceZBar >= Self.zbarInterval
    }

    mutating func zbarScanned() {
        framesSinceZBar = 0
        viewScannedByZBar = true
    }

    /// The decoder's own passes run on this frame (one zxing-cpp read nothing in): on their turn while no code
    /// is likely in view, or on every such frame while one of them reads (`readingLast`).
    func ownPassesDue(readingLast: Bool) -> Bool {
        readingLast || (framesSinceOwnPasses >= Self.ownPassesEvery && !codeLikelyInView)
    }

    mutating func ownPassesRan() {
        framesSinceOwnPasses = 0
    }
}
