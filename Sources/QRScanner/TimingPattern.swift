/// Whether three finders really frame a QR code: between the finders, one module inside the
/// code's edge, run the timing patterns, dark and light modules in turn. Squares and boxes in a
/// cluttered scene pass the finder checks, seldom this one, and every region zbar need not scan
/// saves milliseconds.
enum TimingPattern {
    /// The share of the expected alternations that must be seen along at least one of the two lines:
    /// low, because blur, noise and a tilt smear some modules together.
    private static let requiredShare = 0.4

    static func isPlausible(_ region: FinderTriples.CodeRegion, in luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> Bool {
        // The module size is known to a pixel: a small code's timing row is looked for a little above and below.
        for scale in [1.0, 0.8, 1.25] {
            let module = Double(max(1, region.module)) * scale
            let top = alternations(luma, width: width, height: height, from: region.corner, to: region.right, inward: region.down, module: module)
            let left = alternations(luma, width: width, height: height, from: region.corner, to: region.down, inward: region.right, module: module)
            if top.seen >= top.expected * requiredShare || left.seen >= left.expected * requiredShare { return true }
        }
        return false
    }

    /// Light-dark changes along the line from `from` to `to` shifted 3 modules towards `inward`,
    /// between the two finders' edges, and how many a timing pattern there would show.
    private static func alternations(
        _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
        from: FinderTriples.Point, to: FinderTriples.Point, inward: FinderTriples.Point, module: Double
    ) -> (seen: Double, expected: Double) {
        let along = (x: Double(to.x - from.x), y: Double(to.y - from.y))
        let length = (along.x * along.x + along.y * along.y).squareRoot()
        let across = (x: Double(inward.x - from.x), y: Double(inward.y - from.y))
        let acrossLength = (across.x * across.x + across.y * across.y).squareRoot()
        guard length > 9 * module, acrossLength > 0 else { return (0, 1) }
        let unit = (x: along.x / length, y: along.y / length)
        let shift = (x: across.x / acrossLength * 3 * module, y: across.y / acrossLength * 3 * module)
        let step = max(0.5, module / 3)
        var samples: [Int] = []
        var distance = 4.5 * module
        while distance < length - 4.5 * module {
            let x = Int(Double(from.x) + unit.x * distance + shift.x), y = Int(Double(from.y) + unit.y * distance + shift.y)
            guard x >= 0, y >= 0, x < width, y < height else { return (0, 1) }
            samples.append(Int(luma[y * width + x]))
            distance += step
        }
        guard let low = samples.min(), let high = samples.max(), high - low >= 16 else { return (0, 1) }
        // Hysteresis: a change counts once the level has crossed well past the middle.
        let middle = (low + high) / 2, margin = (high - low) / 6
        var dark = samples[0] < middle
        var changes = 0
        for sample in samples {
            if dark, sample > middle + margin {
                dark = false
                changes += 1
            } else if !dark, sample < middle - margin {
                dark = true
                changes += 1
            }
        }
        return (Double(changes), (length - 9 * module) / module)
    }
}
