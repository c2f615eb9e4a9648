/// How often a live stream may pay for zbar over the whole frame (about 25 ms at 720p):
/// only on a changed frame the cheap passes found nothing in, and at most once every `gap`
/// frames. A code only that pass reads is then read at most `gap - 1` frames after it
/// arrives (3 at 4); a camera panning over a scene without a code pays about a quarter of
/// the pass on each frame (`make bench-qr`).
struct FullScanCadence {
    static let gap = 4

    private var framesSinceScan = gap

    mutating func frameArrived() {
        framesSinceScan += 1
    }

    /// True when a whole-frame scan may run now; it then counts as run.
    mutating func mayScan() -> Bool {
        guard framesSinceScan >= Self.gap else { return false }
        framesSinceScan = 0
        return true
    }
}
