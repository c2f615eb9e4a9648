import Synchronization

/// Lines handed from the reader thread to the one task that reads them, at most `capacity` waiting.
final class LineInbox: Sendable {
    private struct State {
        var lines: [String] = []
        var head = 0
        var waiter: CheckedContinuation<String?, Never>?
        var ending: StationClientError?
        var count: Int { lines.count - head }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Whether the reader thread should stop taking lines (ended or full).
    var status: (ended: Bool, full: Bool) {
        state.withLock { ($0.ending != nil, $0.count >= capacity) }
    }

    var ending: StationClientError? {
        state.withLock { $0.ending }
    }

    func push(_ lines: [String]) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard state.ending == nil else { return nil }
            guard let waiter = state.waiter else {
                state.lines.append(contentsOf: lines)
                return nil
            }
            state.waiter = nil
            state.lines.append(contentsOf: lines.dropFirst())
            return waiter
        }
        waiter?.resume(returning: lines[0])
    }

    /// Ends the inbox; the first reason given stays. Lines already queued are still read.
    func finish(_ reason: StationClientError) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            if state.ending == nil { state.ending = reason }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next line; nil once ended and empty. `roomMade` runs when a full inbox got room.
    func next(roomMade: @Sendable () -> Void) async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let (line, ready, wasFull) = state.withLock { state -> (String?, Bool, Bool) in
                    if state.count > 0 {
                        let wasFull = state.count >= capacity
                        let line = state.lines[state.head]
                        state.head += 1
                        if state.head == state.lines.count {
                            state.lines.removeAll(keepingCapacity: true)
                            state.head = 0
                        } else if state.head >= 4_096 {
                            state.lines.removeFirst(state.head)
                            state.head = 0
                        }
                        return (line, true, wasFull)
                    }
                    if state.ending != nil || Task.isCancelled { return (nil, true, false) }
                    state.waiter = continuation
                    return (nil, false, false)
                }
                if wasFull { roomMade() }
                if ready { continuation.resume(returning: line) }
            }
        } onCancel: {
            finish(.closed)
        }
    }
}
