/// How often a live stream may pay for zbar over the whole frame (tens of milliseconds at 720p):
/// only on a frame the cheap passes found nothing in, and at most once every `gap` frames,
/// so a code the cheap passes cannot see is still read within `gap` frames of its arrival.
struct FullScanCadence {
    static let gap = 3

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
