/// Three finder patterns that can be the corners of one QR code: similar modules,
/// two equal sides at a right angle, 14 to 177 modules apart.
enum FinderTriples {
    /// Regions tried per frame at most: each costs a zbar pass.
    static let maximumRegions = 6
    /// Finders paired per frame at most: the pairing grows with their cube. A cluttered scene
    /// shows dozens of square marks, and a small code's finders are crossed by few rows.
    static let maximumFinders = 40

    /// A plausible code's region and its finders' module size in pixels.
    struct CodeRegion {
        var area: PixelRegion
        var module: Int
        /// The finder centres: at the right angle, then along the code's top row and down its first column.
        var corner: Point
        var right: Point
        var down: Point
    }

    struct Point {
        var x: Int
        var y: Int
    }

    /// A real finder is crossed by about half its core's rows; clutter seldom by so many.
    static func isCredible(_ finder: FinderPatternLocator.Finder) -> Bool {
        finder.hits >= max(2, finder.module / 2 + 1)
    }

    /// One of each group of finders within 4 modules of each other: the same mark seen at two scales or on
    /// neighbouring rows. A code's finder centres are at least 14 modules apart.
    static func distinct(_ finders: [FinderPatternLocator.Finder]) -> [FinderPatternLocator.Finder] {
        var distinct: [FinderPatternLocator.Finder] = []
        for finder in finders where !distinct.contains(where: { isNear($0, finder, modules: 4) }) {
            distinct.append(finder)
        }
        return distinct
    }

    /// Whether two finders' centres are within `modules` of the larger one's modules, across and down.
    static func isNear(_ finder: FinderPatternLocator.Finder, _ other: FinderPatternLocator.Finder, modules: Int) -> Bool {
        let reach = modules * max(finder.module, other.module)
        return abs(finder.x - other.x) < reach && abs(finder.y - other.y) < reach
    }

    /// The region of each plausible code widened by its quiet zone, the most often crossed finders first.
    /// `isPlausible` rejects a region before it takes one of the `maximumRegions` places.
    static func codeRegions(
        _ finders: [FinderPatternLocator.Finder], width: Int, height: Int, isPlausible: (CodeRegion) -> Bool
    ) -> [CodeRegion] {
        let finders = Array(finders.filter(isCredible).sorted { $0.hits > $1.hits }.prefix(maximumFinders))
        var regions: [(region: CodeRegion, hits: Int)] = []
        let count = finders.count
        guard count >= 3 else { return [] }
        for a in 0..<count - 2 {
            for b in a + 1..<count - 1 {
                for c in b + 1..<count {
                    let triple = [finders[a], finders[b], finders[c]]
                    guard isCodeCorner(triple) else { continue }
                    // 3.5 modules from a finder's centre to the code's edge, then most of the quiet zone.
                    let margin = triple.map(\.module).max()! * 7 + 4
                    let (corner, alongTop, downFirst) = oriented(triple)
                    // The corner without a finder: a tilted code reaches past its finders' span there.
                    let fourth = (alongTop.x + downFirst.x - corner.x, alongTop.y + downFirst.y - corner.y)
                    let corners = triple.map { ($0.x, $0.y) } + [fourth]
                    let left = max(0, corners.map(\.0).min()! - margin), right = min(width, corners.map(\.0).max()! + margin)
                    let top = max(0, corners.map(\.1).min()! - margin), bottom = min(height, corners.map(\.1).max()! + margin)
                    let area = PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
                    if !regions.contains(where: { $0.region.area == area }) {
                        let region = CodeRegion(area: area, module: triple.map(\.module).max()!, corner: corner, right: alongTop, down: downFirst)
                        if isPlausible(region) { regions.append((region, triple.map(\.hits).reduce(0, +))) }
                    }
                }
            }
        }
        return regions.sorted { $0.hits > $1.hits }.prefix(maximumRegions).map(\.region)
    }

    /// The finder at the right angle (it faces the longest side), then the one along the top row and the
    /// one down the first column: a code seen from the front turns that way, never mirrored.
    private static func oriented(_ triple: [FinderPatternLocator.Finder]) -> (Point, Point, Point) {
        func squaredDistance(_ p: FinderPatternLocator.Finder, _ q: FinderPatternLocator.Finder) -> Int {
            (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
        }
        let opposite = [squaredDistance(triple[1], triple[2]), squaredDistance(triple[0], triple[2]), squaredDistance(triple[0], triple[1])]
        let cornerIndex = opposite.indices.max { opposite[$0] < opposite[$1] }!
        let others = triple.indices.filter { $0 != cornerIndex }.map { triple[$0] }
        let corner = triple[cornerIndex]
        // y grows downwards: top row then first column turn clockwise, a positive cross product.
        let cross = (others[0].x - corner.x) * (others[1].y - corner.y) - (others[0].y - corner.y) * (others[1].x - corner.x)
        let (right, down) = cross > 0 ? (others[0], others[1]) : (others[1], others[0])
        return (Point(x: corner.x, y: corner.y), Point(x: right.x, y: right.y), Point(x: down.x, y: down.y))
    }

    private static func isCodeCorner(_ triple: [FinderPatternLocator.Finder]) -> Bool {
        let modules = triple.map(\.module)
        guard modules.max()! <= modules.min()! * 2 + 1 else { return false }
        func squaredDistance(_ p: FinderPatternLocator.Finder, _ q: FinderPatternLocator.Finder) -> Int {
            (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
        }
        let sides = [squaredDistance(triple[0], triple[1]), squaredDistance(triple[1], triple[2]), squaredDistance(triple[0], triple[2])].sorted()
        let module = modules.reduce(0, +) / 3
        // Legs within a third of each other; the hypotenuse squared near the sum of the legs squared.
        guard sides[0] * 16 >= sides[1] * 9, abs(sides[2] - sides[0] - sides[1]) * 3 <= sides[2] else { return false }
        return sides[0] >= 14 * 14 * module * module / 2 && sides[1] <= 180 * 180 * module * module * 2
    }
}
