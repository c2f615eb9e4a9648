/// A grey image of its own, and the resamplings the decoding passes give zbar:
/// a camera's code is often too noisy, too small or the wrong way round for zbar as it comes.
struct GreyPlane {
    var width: Int
    var height: Int
    /// `width * height` bytes, row by row.
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A copy of `region` of a frame.
    init(_ region: PixelRegion, of luma: UnsafeBufferPointer<UInt8>, width frameWidth: Int) {
        width = region.width
        height = region.height
        pixels = []
        pixels.reserveCapacity(region.width * region.height)
        for row in region.y..<(region.y + region.height) {
            let start = row * frameWidth + region.x
            pixels.append(contentsOf: luma[start..<(start + region.width)])
        }
    }

    /// Half the size, each pixel the mean of four: sensor noise, JPEG blocks and a screen's
    /// pixel grid average out, and a blurred code's edges become sharp again at that scale.
    static func halved(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> GreyPlane {
        let halfWidth = width / 2, halfHeight = height / 2
        // Every byte is written below: no zero fill first.
        let pixels = [UInt8](unsafeUninitializedCapacity: halfWidth * halfHeight) { half, initialized in
            for y in 0..<halfHeight {
                let top = luma.baseAddress! + 2 * y * width, bottom = top + width
                let out = half.baseAddress! + y * halfWidth
                // Sixteen output pixels at a time (the frame is halved once a frame, on every frame of a stream).
                var x = 0
                while x + 16 <= halfWidth {
                    let upper = UnsafeRawPointer(top + 2 * x).loadUnaligned(as: SIMD32<UInt8>.self)
                    let lower = UnsafeRawPointer(bottom + 2 * x).loadUnaligned(as: SIMD32<UInt8>.self)
                    var sum = SIMD16<UInt16>(truncatingIfNeeded: upper.evenHalf) &+ SIMD16<UInt16>(truncatingIfNeeded: upper.oddHalf)
                    sum &+= SIMD16<UInt16>(truncatingIfNeeded: lower.evenHalf) &+ SIMD16<UInt16>(truncatingIfNeeded: lower.oddHalf)
                    UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: (sum &+ 2) &>> 2), as: SIMD16<UInt8>.self)
                    x += 16
                }
                while x < halfWidth {
                    let sum = Int(top[2 * x]) + Int(top[2 * x + 1]) + Int(bottom[2 * x]) + Int(bottom[2 * x + 1])
                    out[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                    x += 1
                }
            }
            initialized = halfWidth * halfHeight
        }
        return GreyPlane(width: halfWidth, height: halfHeight, pixels: pixels)
    }

    /// Twice the size, bilinear: zbar finds no edges in modules of one or two pixels.
    func doubled() -> GreyPlane {
        let outWidth = width * 2, outHeight = height * 2
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    // Output pixel centres fall at a quarter and three quarters between source pixels.
                    let sourceY = max(0, (y - 1) / 2), nextY = min(height - 1, sourceY + 1)
                    let weightY = y == 0 ? 0 : (y % 2 == 1 ? 1 : 3)
                    for x in 0..<outWidth {
                        let sourceX = max(0, (x - 1) / 2), nextX = min(width - 1, sourceX + 1)
                        let weightX = x == 0 ? 0 : (x % 2 == 1 ? 1 : 3)
                        let a = Int(source[sourceY * width + sourceX]), b = Int(source[sourceY * width + nextX])
                        let c = Int(source[nextY * width + sourceX]), d = Int(source[nextY * width + nextX])
                        let top = a * (4 - weightX) + b * weightX, bottom = c * (4 - weightX) + d * weightX
                        target[y * outWidth + x] = UInt8(truncatingIfNeeded: (top * (4 - weightY) + bottom * weightY + 8) >> 4)
                    }
                }
            }
        }
        return GreyPlane(width: outWidth, height: outHeight, pixels: out)
    }

    /// The code squared up: its three finder centres mapped by one affine transform onto a right
    /// angle with equal sides, modules of at least 3 pixels. zbar reads a code only where its lines
    /// cross a finder in 1:1:3:1:1; a tilted or bent code's finders are squeezed out of that ratio.
    static func rectified(
        _ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
        corner: FinderTriples.Point, right: FinderTriples.Point, down: FinderTriples.Point, module: Int
    ) -> GreyPlane {
        let across = (x: Double(right.x - corner.x), y: Double(right.y - corner.y))
        let downwards = (x: Double(down.x - corner.x), y: Double(down.y - corner.y))
        let scale = max(1, 3 / Double(max(1, module)))
        let span = max((across.x * across.x + across.y * across.y).squareRoot(), (downwards.x * downwards.x + downwards.y * downwards.y).squareRoot()) * scale
        // From a finder's centre to the code's edge is 3.5 modules; the quiet zone is 4 more.
        let margin = 8 * Double(module) * scale
        // A real code seen whole in a camera frame fits; a false triple across the frame would cost zbar 70 ms.
        let side = min(1024, Int(span + 2 * margin))
        var pixels = [UInt8](repeating: 255, count: side * side)
        guard span >= 1 else { return GreyPlane(width: side, height: side, pixels: pixels) }
        pixels.withUnsafeMutableBufferPointer { out in
            for v in 0..<side {
                let along = (Double(v) - margin) / span
                for u in 0..<side {
                    let fraction = (Double(u) - margin) / span
                    let x = Double(corner.x) + fraction * across.x + along * downwards.x
                    let y = Double(corner.y) + fraction * across.y + along * downwards.y
                    guard x >= 0, y >= 0, x < Double(width - 1), y < Double(height - 1) else { continue }
                    let left = Int(x), top = Int(y)
                    let weightX = x - Double(left), weightY = y - Double(top)
                    let index = top * width + left
                    let upper = Double(luma[index]) * (1 - weightX) + Double(luma[index + 1]) * weightX
                    let lower = Double(luma[index + width]) * (1 - weightX) + Double(luma[index + width + 1]) * weightX
                    out[v * side + u] = UInt8(upper * (1 - weightY) + lower * weightY + 0.5)
                }
            }
        }
        return GreyPlane(width: side, height: side, pixels: pixels)
    }

    /// Light for dark: zbar reads only dark modules on a light ground.
    func inverted() -> GreyPlane {
        // A plain loop over the bytes: `map` with a closure costs a sixth of a frame's cheap passes.
        let out = pixels.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: source.count) { target, initialized in
                for index in 0..<source.count {
                    target[index] = ~source[index]
                }
                initialized = source.count
            }
        }
        return GreyPlane(width: width, height: height, pixels: out)
    }

    /// A copy of `region` of this plane.
    func cropped(to region: PixelRegion) -> GreyPlane {
        pixels.withUnsafeBufferPointer { GreyPlane(region, of: $0, width: width) }
    }
}
