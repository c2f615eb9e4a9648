/// Three finder patterns that can be the corners of one QR code: similar modules,
/// two equal sides at a right angle, 14 to 177 modules apart.
enum FinderTriples {
    /// Regions tried per frame at most: each costs a zbar pass.
    static let maximumRegions = 6
    /// Finders paired per frame at most: the pairing grows with their cube.
    static let maximumFinders = 24

    /// The region of each plausible code widened by its quiet zone, the most often crossed finders first.
    static func codeRegions(_ finders: [FinderPatternLocator.Finder], width: Int, height: Int) -> [PixelRegion] {
        // A real finder is crossed by about half its core's rows; clutter seldom by so many.
        let finders = Array(finders.filter { $0.hits >= max(2, $0.module / 2 + 1) }.sorted { $0.hits > $1.hits }.prefix(maximumFinders))
        var regions: [(region: PixelRegion, hits: Int)] = []
        let count = finders.count
        guard count >= 3 else { return [] }
        for a in 0..<count - 2 {
            for b in a + 1..<count - 1 {
                for c in b + 1..<count {
                    let triple = [finders[a], finders[b], finders[c]]
                    guard isCodeCorner(triple) else { continue }
                    // 3.5 modules from a finder's centre to the code's edge, then most of the quiet zone.
                    let margin = triple.map(\.module).max()! * 7 + 4
                    let corners = triple.map { ($0.x, $0.y) } + [fourthCorner(triple)]
                    let left = max(0, corners.map(\.0).min()! - margin), right = min(width, corners.map(\.0).max()! + margin)
                    let top = max(0, corners.map(\.1).min()! - margin), bottom = min(height, corners.map(\.1).max()! + margin)
                    let region = PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
                    if !regions.contains(where: { $0.region == region }) { regions.append((region, triple.map(\.hits).reduce(0, +))) }
                }
            }
        }
        return regions.sorted { $0.hits > $1.hits }.prefix(maximumRegions).map(\.region)
    }

    /// Where the corner without a finder lies: a tilted code reaches past its finders' span there.
    private static func fourthCorner(_ triple: [FinderPatternLocator.Finder]) -> (Int, Int) {
        func squaredDistance(_ p: FinderPatternLocator.Finder, _ q: FinderPatternLocator.Finder) -> Int {
            (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
        }
        // The right angle is at the finder facing the longest side.
        let opposite = [squaredDistance(triple[1], triple[2]), squaredDistance(triple[0], triple[2]), squaredDistance(triple[0], triple[1])]
        let corner = opposite.indices.max { opposite[$0] < opposite[$1] }!
        let others = triple.indices.filter { $0 != corner }.map { triple[$0] }
        return (others[0].x + others[1].x - triple[corner].x, others[0].y + others[1].y - triple[corner].y)
    }

    private static func isCodeCorner(_ triple: [FinderPatternLocator.Finder]) -> Bool {
        let modules = triple.map(\.module)
        guard modules.max()! * 2 <= modules.min()! * 3 + 2 else { return false }
        func squaredDistance(_ p: FinderPatternLocator.Finder, _ q: FinderPatternLocator.Finder) -> Int {
            (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
        }
        let sides = [squaredDistance(triple[0], triple[1]), squaredDistance(triple[1], triple[2]), squaredDistance(triple[0], triple[2])].sorted()
        let module = modules.reduce(0, +) / 3
        // Legs within a third of each other; the hypotenuse squared near the sum of the legs squared.
        guard sides[0] * 16 >= sides[1] * 9, abs(sides[2] - sides[0] - sides[1]) * 4 <= sides[2] else { return false }
        return sides[0] >= 14 * 14 * module * module / 2 && sides[1] <= 180 * 180 * module * module * 2
    }
}
