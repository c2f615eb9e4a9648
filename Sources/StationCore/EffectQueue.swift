/// The runtime's effects not carried out yet, first in first out. Taking the first costs the same however long the
/// queue is (a burst's backlog): an array's `removeFirst` would move every other effect each time.
struct EffectQueue {
    private var items: [StationEffect] = []
    /// The first effect not taken yet.
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(contentsOf effects: [StationEffect]) {
        items += effects
    }

    mutating func takeFirst() -> StationEffect? {
        guard head < items.count else { return nil }
        let effect = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024, head * 2 >= items.count {
            // What was taken is let go once it is half of what is held.
            items.removeFirst(head)
            head = 0
        }
        return effect
    }
}
