/// Tells whether a frame differs from the last one decoded, from a sparse grid of
/// its pixels: a still scene need not be decoded again, its codes are the same.
struct FrameChangeDetector {
    /// One pixel in every `spacing` of every `spacing`-th row.
    private static let spacing = 8
    /// A sample moved by more than this changed (sensor noise stays well under it).
    private static let levelThreshold = 24
    /// This many changed samples make a changed frame: a code entering covers dozens.
    private static let changedSamples = 3

    private var samples: [UInt8] = []
    private var width = 0
    private var height = 0

    /// True when the frame must be decoded; it then becomes the reference.
    mutating func hasChanged(_ luma: UnsafeBufferPointer<UInt8>, width frameWidth: Int, height frameHeight: Int) -> Bool {
        let current = Self.sample(luma, width: frameWidth, height: frameHeight)
        guard frameWidth == width, frameHeight == height, current.count == samples.count else {
            samples = current
            width = frameWidth
            height = frameHeight
            return true
        }
        var changed = 0
        for index in current.indices where abs(Int(current[index]) - Int(samples[index])) > Self.levelThreshold {
            changed += 1
            if changed >= Self.changedSamples {
                samples = current
                return true
            }
        }
        return false
    }

    private static func sample(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [UInt8] {
        var samples: [UInt8] = []
        samples.reserveCapacity((width / spacing + 1) * (height / spacing + 1))
        var y = spacing / 2
        while y < height {
            var x = spacing / 2
            while x < width {
                samples.append(luma[y * width + x])
                x += spacing
            }
            y += spacing
        }
        return samples
    }
}
