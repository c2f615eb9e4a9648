import Foundation

/// The hand-over between the reader thread and the decoder thread.
/// Events are never dropped and keep their order with the frames around them.
final class FrameMailbox: FrameSink, @unchecked Sendable {
    enum Item {
        case frame(Frame)
        case event(QREvent)
        case end
    }

    // Every stored property below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var items: [Item] = []
    private var stopped = false
    private(set) var droppedFrames = 0

    @discardableResult func deliver(_ frame: Frame, live: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if live {
            if case .frame = items.last {
                items.removeLast()
                droppedFrames += 1
            }
        } else {
            while !stopped && items.contains(where: { if case .frame = $0 { true } else { false } }) {
                condition.wait()
            }
        }
        guard !stopped else { return false }
        items.append(.frame(frame))
        condition.broadcast()
        return true
    }

    func report(_ event: QREvent) {
        append(.event(event))
    }

    /// The source ended for good: the decoder finishes what is queued, then the stream ends.
    func finish() {
        append(.end)
    }

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Waits for the next item; nil once stopped.
    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && items.isEmpty {
            condition.wait()
        }
        guard !stopped else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    func stop() {
        condition.lock()
        stopped = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func append(_ item: Item) {
        condition.lock()
        if !stopped {
            items.append(item)
            condition.broadcast()
        }
        condition.unlock()
    }
}
