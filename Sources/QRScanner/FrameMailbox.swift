import POSIXSupport
import Synchronization

/// The hand-over between the reader thread and the decoder thread.
/// Events are never dropped and keep their order with the frames around them.
final class FrameMailbox: FrameSink, Sendable {
    enum Item {
        case frame(Frame)
        case event(QREvent)
        case end
    }

    private struct State {
        var items: [Item] = []
        var stopped = false
        var droppedFrames = 0
        /// Each side says it is about to wait, so the other signals only then (a semaphore's count never piles up).
        var decoderWaiting = false
        var readerWaiting = false
    }

    private let state = Mutex(State())
    private let itemArrived = ThreadSignal()
    private let frameTaken = ThreadSignal()

    var droppedFrames: Int { state.withLock { $0.droppedFrames } }

    /// Whether a recorded frame waits for the one before it to be taken (what a stop must release).
    var readerIsWaiting: Bool { state.withLock { $0.readerWaiting } }

    @discardableResult func deliver(_ frame: Frame, live: Bool) -> Bool {
        while true {
            // nil: a recorded frame waits until the one before it was taken.
            let (delivered, wakeDecoder) = state.withLock { state -> (Bool?, Bool) in
                guard !state.stopped else { return (false, false) }
                if live {
                    if case .frame = state.items.last {
                        state.items.removeLast()
                        state.droppedFrames += 1
                    }
                } else if state.items.contains(where: { if case .frame = $0 { true } else { false } }) {
                    state.readerWaiting = true
                    return (nil, false)
                }
                state.items.append(.frame(frame))
                return (true, Self.takeFlag(&state.decoderWaiting))
            }
            if wakeDecoder { itemArrived.signal() }
            guard let delivered else {
                frameTaken.wait()
                continue
            }
            return delivered
        }
    }

    func report(_ event: QREvent) {
        append(.event(event))
    }

    /// The source ended for good: the decoder finishes what is queued, then the stream ends.
    func finish() {
        append(.end)
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Waits for the next item; nil once stopped.
    func take() -> Item? {
        while true {
            let (item, stopped, wakeReader) = state.withLock { state -> (Item?, Bool, Bool) in
                guard !state.stopped else { return (nil, true, false) }
                guard !state.items.isEmpty else {
                    state.decoderWaiting = true
                    return (nil, false, false)
                }
                return (state.items.removeFirst(), false, Self.takeFlag(&state.readerWaiting))
            }
            if wakeReader { frameTaken.signal() }
            if stopped { return nil }
            if let item { return item }
            itemArrived.wait()
        }
    }

    func stop() {
        let (wakeDecoder, wakeReader) = state.withLock { state in
            state.stopped = true
            state.items.removeAll()
            return (Self.takeFlag(&state.decoderWaiting), Self.takeFlag(&state.readerWaiting))
        }
        if wakeDecoder { itemArrived.signal() }
        if wakeReader { frameTaken.signal() }
    }

    private func append(_ item: Item) {
        let wakeDecoder = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.items.append(item)
            return Self.takeFlag(&state.decoderWaiting)
        }
        if wakeDecoder { itemArrived.signal() }
    }

    private static func takeFlag(_ flag: inout Bool) -> Bool {
        defer { flag = false }
        return flag
    }
}
