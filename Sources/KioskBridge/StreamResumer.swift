import Lifecycle
import Logging
import StationClient
import StationWire
import Synchronization

/// Brings resuming streams the events they missed, through one connection to the daemon at a time.
///
/// Streams that come back with a `Last-Event-ID` wait here; one replay from the lowest of their seqs serves them
/// all, each getting what lies beyond its own seq. So a flood of resumes costs the daemon one client, not one
/// each, and the bridge one replay's memory. The replay reads up to the seam, the newest seq its `hello` named
/// (or the `ack` with `replayed`); what came later the hub holds. It keeps the newest `EventHub.heldLimit`
/// events and at most `replayBytes`; it stops as soon as every stream it serves has gone.
public final class StreamResumer: Service, Sendable {
    typealias Replayed = (events: [ReplayedEvent], seam: UInt64)

    let socketPath: String
    let hub: EventHub
    let log: Logger
    /// How long the page shows a verdict (`--hold`): an older replayed one is history.
    let hold: Duration
    static let quietID = "kiosk-quiet"
    static let replayID = "kiosk-resume"
    /// A replay that brings nothing for this long is given up; the browsers ask again. A long one that moves is
    /// not: the daemon sends a replay as its other clients leave it room.
    static let stallLimit = Duration.seconds(10)
    /// Half of what a stream may have waiting: the replay fits, with room for what arrives meanwhile.
    static let replayBytes = EventStream.pendingLimit / 2
    /// How many replayed events between two looks at whether the streams' clients are still there.
    static let clientCheckInterval = 512

    /// How many messages a replay has read, for the watch on its progress.
    final class Progress: Sendable {
        let messages = Atomic<Int>(0)
    }

    private let waiting = Mutex<[EventStream]>([])
    private let wake: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation

    public var name: String { "stream resumer" }

    public init(socketPath: String, hub: EventHub, log: Logger, hold: Duration) {
        self.hold = hold
        self.socketPath = socketPath
        self.hub = hub
        self.log = log
        (wake, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a stream that resumes from its `Last-Event-ID`; called on the HTTP server's thread.
    public func resume(_ stream: EventStream) {
        guard stream.resumeAfter != nil else { return }
        waiting.withLock { $0.append(stream) }
        wakeUp.yield()
    }

    /// Serves the waiting streams, a batch per replay, until cancelled.
    public func run() async {
        for await _ in wake {
            while !Task.isCancelled, let batch = takeWaiting() {
                await serve(batch)
            }
        }
    }

    /// The waiting streams whose clients are still there; nil when there are none.
    private func takeWaiting() -> [EventStream]? {
        let batch = waiting.withLock { waiting in
            defer { waiting = [] }
            return waiting.filter { !$0.isFinished }
        }
        return batch.isEmpty ? nil : batch
    }

    private func serve(_ batch: [EventStream]) async {
        let since = batch.compactMap(\.resumeAfter).min() ?? 0
        let progress = Progress()
        let replayed = await withTaskGroup(of: Replayed?.self) { group in
            group.addTask { await self.replay(since: since, for: batch, progress: progress) }
            group.addTask {
                var seen = -1
                while !Task.isCancelled, progress.messages.load(ordering: .relaxed) != seen {
                    seen = progress.messages.load(ordering: .relaxed)
                    try? await Task.sleep(for: Self.stallLimit)
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        for stream in batch {
            if let replayed {
                hub.finishResume(stream, replayed: replayed.events, seam: replayed.seam)
            } else {
                hub.failResume(stream)
            }
        }
    }

    /// The journaled events after `since`, the newest that fit, and the seam; nil when the daemon could not be
    /// asked, or when every stream of `batch` has gone meanwhile.
    private func replay(since: UInt64, for batch: [EventStream], progress: Progress) async -> Replayed? {
        guard let connection = try? await StationConnection.connect(path: socketPath) else { return nil }
        defer { connection.close() }
        let seam = connection.hello.lastSeq
        guard since < seam else { return ([], seam) }
        // Live events are not wanted here: the hub has them. Replayed events are the answer to `replay`, never filtered.
        guard (try? connection.send(ClientCommand(id: .string(Self.quietID), action: .watch([])))) != nil else { return nil }
        var quiet = false
        var kept = ReplayWindow(byteLimit: Self.replayBytes, countLimit: EventHub.heldLimit)
        var sinceLastCheck = 0
        while let message = await connection.next() {
            progress.messages.add(1, ordering: .relaxed)
            if !quiet {
                quiet = message.type == .ack && message.id == Self.quietID
                if quiet, (try? connection.send(ClientCommand(id: .string(Self.replayID), action: .replay(since: since)))) == nil { return nil }
                continue
            }
            if let seq = message.seq {
                kept.append(seq: seq, type: message.type.name, line: message.line)
                if seq >= seam { return finished(kept, since: since, seam: seam) }
                sinceLastCheck += 1
                if sinceLastCheck == Self.clientCheckInterval {
                    sinceLastCheck = 0
                    batch.forEach { $0.endIfClientLeft() }
                    if batch.allSatisfy(\.isFinished) { return nil }
                }
            } else if message.id == Self.replayID {
                if message.type == .error, message.code == ErrorCode.notAvailable.rawValue {
                    log.warning("pages resumed after event \(since), which the daemon's journal no longer holds: they continue live")
                    return (kept.events(hold: hold, nowMilliseconds: EventTime.nowMilliseconds()), seam)
                }
                if message.type == .ack { return finished(kept, since: since, seam: seam) }
            }
        }
        return nil
    }

    private func finished(_ kept: ReplayWindow, since: UInt64, seam: UInt64) -> Replayed {
        if kept.dropped > 0 {
            log.warning("pages resumed after event \(since): only the newest \(kept.count) events are sent again")
        }
        return (kept.events(hold: hold, nowMilliseconds: EventTime.nowMilliseconds()), seam)
    }
}
