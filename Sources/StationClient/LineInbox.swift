import POSIXSupport
import Synchronization

/// Lines handed from the reader thread to the one task that reads them, through the thread bridge; while
/// `capacity` lines wait, the thread stops reading, and the daemon's own bound (its client queue) takes over.
final class LineInbox: Sendable {
    private struct State {
        var waiting = 0
        var ending: StationClientError?
    }

    let capacity: Int
    private let bridge = ThreadBridge<String>()
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
        // A reader task cancelled in `next` ends the inbox, as `close()` would.
        bridge.onTermination { [weak self] in
            self?.state.withLock { if $0.ending == nil { $0.ending = .closed } }
        }
    }

    /// Whether the reader thread should stop taking lines (ended or full).
    var status: (ended: Bool, full: Bool) {
        state.withLock { ($0.ending != nil, $0.waiting >= capacity) }
    }

    var ending: StationClientError? {
        state.withLock { $0.ending }
    }

    /// Called by the reader thread; never blocks it.
    func push(_ lines: [String]) {
        let open = state.withLock { state -> Bool in
            guard state.ending == nil else { return false }
            state.waiting += lines.count
            return true
        }
        if open { lines.forEach(bridge.send) }
    }

    /// Ends the inbox; the first reason given stays. Lines already queued are still read.
    func finish(_ reason: StationClientError) {
        state.withLock { if $0.ending == nil { $0.ending = reason } }
        bridge.finish()
    }

    /// The next line; nil once ended and empty, or when the calling task is cancelled. `roomMade` runs when a full
    /// inbox got room. One task at a time calls it.
    func next(roomMade: @Sendable () -> Void) async -> String? {
        var lines = bridge.elements.makeAsyncIterator()
        guard let line = await lines.next() else { return nil }
        let wasFull = state.withLock { state -> Bool in
            defer { state.waiting -= 1 }
            return state.waiting >= capacity
        }
        if wasFull { roomMade() }
        return line
    }
}
