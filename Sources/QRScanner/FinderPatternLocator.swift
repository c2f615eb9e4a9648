/// Finds where a frame may hold a QR code, at a fraction of a full zbar pass: it looks
/// for the finder pattern's dark-light-dark-light-dark runs in ratio 1:1:3:1:1 on every
/// other row, then checks the column and the diagonal through each hit. zbar then
/// scans only where three of them can be one code's corners.
struct FinderPatternLocator {
    struct Finder: Equatable {
        var x: Int
        var y: Int
        /// Estimated module size in pixels.
        var module: Int
        var hits: Int
    }

    /// Thresholds come from blocks of this many pixels a side (smoothed over 3x3 blocks).
    private static let blockShift = 5
    /// Below this light-dark range a neighbourhood is flat: nothing to find there.
    private static let minimumContrast = 20
    /// Modules under 2 pixels cannot be decoded; blur and rotation shrink a 2-pixel finder's 14 a little.
    private static let minimumPatternLength: Int32 = 12
    /// Every other row: the 3-module core of a 2-pixel-module finder spans 6 rows.
    private static let rowStep = 2

    private var thresholds: [Int16] = []
    private var runs: [Int32] = []
    private var runCount = 0

    mutating func locate(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [Finder] {
        computeThresholds(luma, width: width, height: height)
        var finders: [Finder] = []
        let blocksWide = (width + (1 << Self.blockShift) - 1) >> Self.blockShift
        var y = Self.rowStep / 2
        while y < height {
            let row = luma.baseAddress! + y * width
            let thresholdRow = (y >> Self.blockShift) * blocksWide
            collectRuns(row, width: width, thresholdRow: thresholdRow)
            checkRuns(luma, width: width, height: height, y: y, into: &finders)
            y += Self.rowStep
        }
        return finders.filter { $0.hits >= 2 }
    }

    /// Per block: the midpoint of the light and dark seen around it, or -1 where the neighbourhood is flat.
    private mutating func computeThresholds(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        let size = 1 << Self.blockShift
        let blocksWide = (width + size - 1) / size, blocksHigh = (height + size - 1) / size
        var minima = [UInt8](repeating: 255, count: blocksWide * blocksHigh)
        var maxima = [UInt8](repeating: 0, count: blocksWide * blocksHigh)
        let pixels = luma.baseAddress!
        minima.withUnsafeMutableBufferPointer { minima in
            maxima.withUnsafeMutableBufferPointer { maxima in
                // Every fourth row, every other pixel: the extremes of a 32-pixel block need no more.
                for y in stride(from: 0, to: height, by: 4) {
                    let row = pixels + y * width
                    let blockRow = (y >> Self.blockShift) * blocksWide
                    for blockX in 0..<blocksWide {
                        var low = minima[blockRow + blockX], high = maxima[blockRow + blockX]
                        for x in stride(from: blockX << Self.blockShift, to: min(width, (blockX + 1) << Self.blockShift), by: 2) {
                            low = min(low, row[x])
                            high = max(high, row[x])
                        }
                        minima[blockRow + blockX] = low
                        maxima[blockRow + blockX] = high
                    }
                }
            }
        }
        if thresholds.count != blocksWide * blocksHigh {
            thresholds = [Int16](repeating: -1, count: blocksWide * blocksHigh)
        }
        for blockY in 0..<blocksHigh {
            for blockX in 0..<blocksWide {
                var low: UInt8 = 255, high: UInt8 = 0
                for neighbourY in max(0, blockY - 1)...min(blocksHigh - 1, blockY + 1) {
                    for neighbourX in max(0, blockX - 1)...min(blocksWide - 1, blockX + 1) {
                        low = min(low, minima[neighbourY * blocksWide + neighbourX])
                        high = max(high, maxima[neighbourY * blocksWide + neighbourX])
                    }
                }
                thresholds[blockY * blocksWide + blockX] = Int(high) - Int(low) >= Self.minimumContrast ? (Int16(low) + Int16(high)) / 2 : -1
            }
        }
    }

    /// The row as alternating run lengths, the first one light (possibly empty), in `runs[0..<runCount]`.
    private mutating func collectRuns(_ row: UnsafePointer<UInt8>, width: Int, thresholdRow: Int) {
        if runs.count < width + 2 {
            runs = [Int32](repeating: 0, count: width + 2)
        }
        let blockSize = 1 << Self.blockShift
        var count = 0
        thresholds.withUnsafeBufferPointer { thresholds in
            runs.withUnsafeMutableBufferPointer { runs in
                var dark = false
                var runStart = 0
                var blockStart = 0
                while blockStart < width {
                    let threshold = thresholds[thresholdRow + (blockStart >> Self.blockShift)]
                    let blockEnd = min(width, blockStart + blockSize)
                    if threshold < 0 {
                        // A flat block is all light: at most one transition, where it starts.
                        if dark {
                            runs[count] = Int32(blockStart - runStart)
                            count += 1
                            runStart = blockStart
                            dark = false
                        }
                    } else if blockEnd - blockStart == blockSize, Self.isUniform(row + blockStart, threshold: threshold, dark: dark) {
                        // No transition in the block: one comparison of its 32 pixels, not 32.
                    } else {
                        for x in blockStart..<blockEnd where (Int16(row[x]) < threshold) != dark {
                            runs[count] = Int32(x - runStart)
                            count += 1
                            runStart = x
                            dark.toggle()
                        }
                    }
                    blockStart = blockEnd
                }
                runs[count] = Int32(width - runStart)
                count += 1
            }
        }
        runCount = count
    }

    /// Whether the 32 pixels from `pixels` are all dark (`dark`) or all light against `threshold` (0 to 255).
    private static func isUniform(_ pixels: UnsafePointer<UInt8>, threshold: Int16, dark: Bool) -> Bool {
        let block = UnsafeRawPointer(pixels).loadUnaligned(as: SIMD32<UInt8>.self)
        let darkPixels = block .< SIMD32<UInt8>(repeating: UInt8(threshold))
        return dark ? all(darkPixels) : !any(darkPixels)
    }

    private func checkRuns(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, y: Int, into finders: inout [Finder]) {
        // Dark runs sit at odd indices; a window starts at a dark run and spans five.
        var index = 1
        var x = Int(runs[0])
        while index + 4 < runCount {
            let window = (runs[index], runs[index + 1], runs[index + 2], runs[index + 3], runs[index + 4])
            if Self.isFinderRatio(window) {
                let centreX = x + Int(window.0 + window.1) + Int(window.2) / 2
                let horizontal = Int(window.0 + window.1 + window.2 + window.3 + window.4)
                if let vertical = verticalFinder(luma, width: width, height: height, x: centreX, y: y, horizontal: horizontal),
                   diagonalFinder(luma, width: width, height: height, x: centreX, y: vertical.centreY, horizontal: horizontal) {
                    record(Finder(x: centreX, y: vertical.centreY, module: max(1, (horizontal + vertical.total) / 14), hits: 1), into: &finders)
                }
            }
            x += Int(runs[index] + runs[index + 1])
            index += 2
        }
    }

    /// 1:1:3:1:1 within a tolerance loose enough for blur and 2-pixel modules.
    private static func isFinderRatio(_ runs: (Int32, Int32, Int32, Int32, Int32)) -> Bool {
        let total = runs.0 + runs.1 + runs.2 + runs.3 + runs.4
        guard total >= minimumPatternLength else { return false }
        // Work in sevenths of a module to stay in integers.
        let module = total
        let tolerance = total * 3 / 4 + 7
        func near(_ run: Int32, _ modules: Int32) -> Bool { abs(run * 7 - module * modules) <= tolerance * modules }
        return near(runs.0, 1) && near(runs.1, 1) && near(runs.2, 3) && near(runs.3, 1) && near(runs.4, 1)
            && runs.2 * 4 >= (runs.0 + runs.4) * 3   // an alignment pattern's centre is one module, a finder's three
    }

    /// The same pattern down the column through the hit; its centre row and length.
    private func verticalFinder(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Int, y: Int, horizontal: Int) -> (centreY: Int, total: Int)? {
        let blocksWide = (width + (1 << Self.blockShift) - 1) >> Self.blockShift
        let limit = horizontal * 2
        func isDark(_ row: Int) -> Bool {
            let threshold = thresholds[(row >> Self.blockShift) * blocksWide + (x >> Self.blockShift)]
            return Int16(luma[row * width + x]) < threshold
        }
        guard isDark(y) else { return nil }
        var counts = [0, 0, 0, 0, 0]
        var row = y
        // Up: the centre run, then light, then dark.
        for (slot, dark) in [(2, true), (1, false), (0, true)] {
            while row >= 0, isDark(row) == dark, counts[slot] < limit {
                counts[slot] += 1
                row -= 1
            }
            if row < 0 || counts[slot] == 0 || counts[slot] >= limit { return nil }
        }
        let top = row + 1 + counts[0] + counts[1]
        row = y + 1
        for (slot, dark) in [(2, true), (3, false), (4, true)] {
            while row < height, isDark(row) == dark, counts[slot] < limit {
                counts[slot] += 1
                row += 1
            }
            if row >= height || (slot != 2 && counts[slot] == 0) || counts[slot] >= limit { return nil }
        }
        let runs = (Int32(counts[0]), Int32(counts[1]), Int32(counts[2]), Int32(counts[3]), Int32(counts[4]))
        let total = counts.reduce(0, +)
        guard Self.isFinderRatio(runs), total * 2 >= horizontal, total <= horizontal * 2 else { return nil }
        return (top + counts[2] / 2, total)
    }

    /// The pattern again along the diagonal: lines and text strokes pass the two straight checks, squares pass this too.
    private func diagonalFinder(_ luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Int, y: Int, horizontal: Int) -> Bool {
        let blocksWide = (width + (1 << Self.blockShift) - 1) >> Self.blockShift
        let limit = horizontal * 2
        func isDark(_ step: Int) -> Bool? {
            let column = x + step, row = y + step
            guard column >= 0, row >= 0, column < width, row < height else { return nil }
            let threshold = thresholds[(row >> Self.blockShift) * blocksWide + (column >> Self.blockShift)]
            return Int16(luma[row * width + column]) < threshold
        }
        guard isDark(0) == true else { return false }
        var counts: (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)
        var step = 0
        func walk(_ dark: Bool, _ direction: Int) -> Int32? {
            var count: Int32 = 0
            while isDark(step) == dark, count < limit {
                count += 1
                step += direction
            }
            return count == 0 || count >= limit || isDark(step) == nil ? nil : count
        }
        guard let centreUp = walk(true, -1), let lightUp = walk(false, -1), let darkUp = walk(true, -1) else { return false }
        step = 1
        let centreDown = walk(true, 1) ?? 0
        guard let lightDown = walk(false, 1), let darkDown = walk(true, 1) else { return false }
        counts = (darkUp, lightUp, centreUp + centreDown, lightDown, darkDown)
        return Self.isFinderRatio(counts)
    }

    /// Hits on neighbouring rows are the same finder.
    private func record(_ finder: Finder, into finders: inout [Finder]) {
        for index in finders.indices {
            let known = finders[index]
            let reach = 2 * max(known.module, finder.module)
            if abs(known.x - finder.x) <= reach, abs(known.y - finder.y) <= reach {
                finders[index].hits += 1
                return
            }
        }
        finders.append(finder)
    }
}
