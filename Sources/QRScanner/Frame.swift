/// One grey (Y800) image and its time on the source's clock.
struct Frame: Sendable {
    let width: Int
    let height: Int
    /// `width * height` luma bytes, row by row.
    let luma: [UInt8]
    /// A Y4M stream's own clock (frame number over frame rate); a camera's arrival time.
    let time: Duration
}
