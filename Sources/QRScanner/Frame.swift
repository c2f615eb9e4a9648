/// One grey (Y800) image and its time on the source's clock.
struct Frame: Sendable {
    let width: Int
    let height: Int
    /// `width * height` luma bytes, row by row.
    let luma: [UInt8]
    /// A Y4M stream's own clock (frame number over frame rate); a camera's arrival time.
    let time: Duration
    /// When the reader thread got it from the source: when a code in it was seen, whatever the decoding costs after.
    let arrivedAt: ContinuousClock.Instant

    init(width: Int, height: Int, luma: [UInt8], time: Duration, arrivedAt: ContinuousClock.Instant) {
        self.width = width
        self.height = height
        self.luma = luma
        self.time = time
        self.arrivedAt = arrivedAt
    }
}
