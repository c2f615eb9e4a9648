import Logging
@testable import StationCore
import Testing

/// The runtime's queue gives its effects back in the order they came, across the point where it lets go of what
/// was taken, while more keep coming (a burst's backlog drained as it grows).
@Suite struct EffectQueueTests {
    @Test func effectsComeOutInTheOrderTheyWentInWhileMoreArrive() {
        var queue = EffectQueue()
        var taken: [String] = []
        var next = 0
        for _ in 0..<3_000 {
            queue.append(contentsOf: [.log(.info, "\(next)"), .log(.info, "\(next + 1)")])
            next += 2
            if case .log(_, let line)? = queue.takeFirst() { taken.append(line) }
        }
        while let effect = queue.takeFirst() {
            if case .log(_, let line) = effect { taken.append(line) }
        }
        #expect(taken == (0..<next).map(String.init))
        #expect(queue.isEmpty)
    }
}
