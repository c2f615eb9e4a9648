/// How often a live stream may pay for the full-resolution scans (zxing-cpp over the whole frame,
/// 12 ms at 720p over clutter, then zbar, 40 ms and more): only on a changed frame the half-size
/// pass read nothing in, and not while a code read in the last `quietAfterCode` frames is likely
/// still in view (the scan would only find it again). A code entering view brings three finder
/// patterns at once: a frame with three distinct ones the last `memory` frames did not show may be
/// scanned `gap` frames after the last scan, so a code only those scans read is read at most
/// `gap - 1` frames after it arrives. A scene whose marks were all seen before, or that shows fewer
/// than three new ones (the clutter a camera pans over, where one square mark or another flickers in
/// and out; or a code whose first views were unreadable), is scanned again every `repeatAfter` frames.
struct FullScanCadence {
    static let gap = 3
    static let repeatAfter = 45
    static let quietAfterCode = 15
    static let memory = 15

    private var framesSinceScan = repeatAfter
    private var framesSinceCode = quietAfterCode
    /// The finder-like marks of the last `memory` frames that reached this pass, newest last.
    private var recentMarks: [[FinderPatternLocator.Finder]] = []

    mutating func frameArrived(withCode: Bool) {
        framesSinceScan += 1
        framesSinceCode = withCode ? 0 : framesSinceCode + 1
    }

    /// False while no full-resolution scan can run, whatever the frame shows: the marks need not be looked for.
    var mayBeDue: Bool {
        framesSinceScan >= Self.gap && !codeLikelyInView
    }

    /// A code read in the last `quietAfterCode` frames is likely still in view: a frame no cheap pass reads
    /// most likely shows it blurred or half out of view, and a scan would only find it again.
    var codeLikelyInView: Bool {
        framesSinceCode < Self.quietAfterCode
    }

    /// True when the full-resolution scans may run now, on a frame with these finder-like marks; it then counts as run.
    mutating func mayScan(marks: [FinderPatternLocator.Finder]) -> Bool {
        // A hand's shake or a slow pan moves a mark by a few modules between frames.
        let new = marks.filter { mark in !recentMarks.joined().contains { FinderTriples.isNear(mark, $0, modules: 3, plus: 8) } }
        recentMarks.append(marks)
        if recentMarks.count > Self.memory { recentMarks.removeFirst() }
        let wait = FinderTriples.distinct(new).count >= 3 ? Self.gap : Self.repeatAfter
        guard framesSinceScan >= wait, !codeLikelyInView else { return false }
        framesSinceScan = 0
        return true
    }
}
