/// When a live stream pays for the passes that cannot run on every frame. zxing-cpp's default call runs on
/// every changed frame; libzbar's whole-frame scan (40 ms and more at 720p, seven times zxing-cpp's) runs on
/// a schedule: on a view it has not scanned, once `zbarInterval` frames have passed since its last scan, so
/// a code only libzbar reads, held in view, is scanned at most `zbarInterval - 1` frames after it appears.
/// The decoder's own passes run on every `ownPassesEvery`-th changed frame, and not while a code read in the last
/// `quietAfterCode` frames is likely still in view (a dense code's many finder-like marks cost 50 to 180 ms to pair):
/// zxing-cpp's call on every frame and libzbar's scan take most of a panning camera's budget.
struct LiveCadence {
    static let zbarInterval = 10
    static let quietAfterCode = 15
    static let ownPassesEvery = 4

    private var framesSinceZBar = zbarInterval
    /// Whether libzbar has scanned the frame the decoder last decoded (an unchanged frame shows that view).
    private var viewScannedByZBar = false
    private var framesSinceCode = quietAfterCode
    private var changedFrames = 0

    /// Counts a frame of the stream, decoded or not; `withCode`: the last decoded frame showed a code.
    mutating func frameArrived(withCode: Bool) {
        framesSinceZBar += 1
        framesSinceCode = withCode ? 0 : framesSinceCode + 1
    }

    /// A changed frame is decoded: a view libzbar has not scanned.
    mutating func viewChanged() {
        viewScannedByZBar = false
        changedFrames += 1
    }

    var zbarDue: Bool {
        !viewScannedByZBar && framesSinceZBar >= Self.zbarInterval
    }

    mutating func zbarScanned() {
        framesSinceZBar = 0
        viewScannedByZBar = true
    }

    /// The decoder's own passes run on this frame: on their turn while no code is likely in view, or every
    /// frame while one of them reads (`readingLast`).
    func ownPassesDue(readingLast: Bool) -> Bool {
        readingLast || (changedFrames % Self.ownPassesEvery == 1 && framesSinceCode >= Self.quietAfterCode)
    }
}
