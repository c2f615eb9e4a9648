/// How often a live stream may pay for zbar over the whole frame (25 ms and more at 720p):
/// only on a changed frame the cheap passes found nothing in, at most once every `gap` frames,
/// and not while a code read in the last `quietAfterCode` frames is likely still in view (the
/// scan would only find it again). A code only that pass reads is read at most `gap - 1`
/// frames after it arrives; a camera panning over a scene without a code pays about a quarter
/// of the pass on each frame (`make bench-qr`).
struct FullScanCadence {
    static let gap = 4
    static let quietAfterCode = 15

    private var framesSinceScan = gap
    private var framesSinceCode = quietAfterCode

    mutating func frameArrived(withCode: Bool) {
        framesSinceScan += 1
        framesSinceCode = withCode ? 0 : framesSinceCode + 1
    }

    /// True when a whole-frame scan may run now; it then counts as run.
    mutating func mayScan() -> Bool {
        guard framesSinceScan >= Self.gap, framesSinceCode >= Self.quietAfterCode else { return false }
        framesSinceScan = 0
        return true
    }
}
