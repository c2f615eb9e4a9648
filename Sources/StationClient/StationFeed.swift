import StationWire
import Synchronization

/// Every journaled event from `since` on, across daemon restarts and lost connections.
///
/// Each connection asks `replay` from the last seq it yielded, so nothing is lost or
/// doubled at a reconnect; failed attempts wait `ReconnectBackoff` (1 s doubling to
/// 60 s, with jitter). Events that arrive live before the replay reaches them are
/// dropped, since the replay brings them in order (`ReplaySeam`). One task iterates; any task may
/// `send` or `restart`.
///
/// ```swift
/// let feed = StationFeed(socketPath: "/run/sealtrust-scand/scand.sock", since: savedSeq)
/// for await update in feed {
///     if case .event(let event) = update { publish(event.line, seq: event.seq!) }
/// }
/// ```
public final class StationFeed: AsyncSequence, Sendable {
    public typealias Element = StationUpdate
    public static let defaultSocketPath = "/run/sealtrust-scand/scand.sock"
    static let replayID = "station-feed-replay"

    private struct Shared {
        var connection: StationConnection?
        var restartSince: UInt64?
    }

    public let socketPath: String
    private let since: UInt64
    private let shared = Mutex(Shared())

    public init(socketPath: String = StationFeed.defaultSocketPath, since: UInt64) {
        self.socketPath = socketPath
        self.since = since
    }

    /// Sends on the current connection; `closedByDaemon` when there is none.
    public func send(_ command: ClientCommand) throws(StationClientError) {
        guard let connection = shared.withLock({ $0.connection }) else { throw .closedByDaemon }
        try connection.send(command)
    }

    /// Drops the connection and follows again from `since` at once (a consumer that must see events again).
    public func restart(since: UInt64) {
        let connection = shared.withLock { shared -> StationConnection? in
            shared.restartSince = since
            return shared.connection
        }
        connection?.close()
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self, lastSeq: since)
    }

    fileprivate func adopt(_ connection: StationConnection?) {
        shared.withLock { $0.connection = connection }
    }

    fileprivate var restartPending: Bool {
        shared.withLock { $0.restartSince != nil }
    }

    fileprivate func takeRestart() -> UInt64? {
        shared.withLock { shared in
            defer { shared.restartSince = nil }
            return shared.restartSince
        }
    }

    public struct Iterator: AsyncIteratorProtocol {
        private let feed: StationFeed
        private var seam: ReplaySeam
        private var connection: StationConnection?
        private var caughtUp = false
        private var backoff = ReconnectBackoff()
        private var wait: Duration?
        private var queued: [StationUpdate] = []

        fileprivate init(feed: StationFeed, lastSeq: UInt64) {
            self.feed = feed
            seam = ReplaySeam(since: lastSeq)
        }

        /// nil only when the task is cancelled.
        public mutating func next() async -> StationUpdate? {
            while !Task.isCancelled {
                if let restart = feed.takeRestart() {
                    seam.resume(after: restart)
                    queued.removeAll()
                    drop()
                    wait = nil
                }
                if !queued.isEmpty { return queued.removeFirst() }
                if let pause = wait {
                    wait = nil
                    do { try await Task.sleep(for: pause) } catch { return nil }
                    continue
                }
                guard let connection else {
                    if let update = await connect() { return update }
                    continue
                }
                guard let message = await connection.next() else {
                    if Task.isCancelled { break }
                    let ending = connection.ending ?? .closedByDaemon
                    drop()
                    if feed.restartPending { continue }
                    let pause = backoff.next()
                    wait = pause
                    return .disconnected(ending, retryIn: pause)
                }
                if let update = receive(message, on: connection) { return update }
            }
            drop()
            return nil
        }

        private mutating func connect() async -> StationUpdate? {
            do {
                let made = try await StationConnection.connect(path: feed.socketPath)
                backoff.reset()
                let newest = made.hello.lastSeq
                if !seam.connected(newest: newest) {
                    queued.append(.journalBehind(asked: seam.lastSeq, newest: newest))
                    seam.resume(after: 0)
                }
                try made.send(ClientCommand(id: .string(StationFeed.replayID), action: .replay(since: seam.lastSeq)))
                connection = made
                feed.adopt(made)
                caughtUp = seam.isCaughtUp
                if caughtUp { queued.append(.caughtUp) }
                return .connected(made.hello, since: seam.lastSeq)
            } catch {
                let pause = backoff.next()
                wait = pause
                return .disconnected(error, retryIn: pause)
            }
        }

        private mutating func receive(_ message: StationLine, on connection: StationConnection) -> StationUpdate? {
            guard let seq = message.seq else {
                if message.id == StationFeed.replayID {
                    if message.type == .error, message.code == ErrorCode.notAvailable.rawValue {
                        return skipRemoved(detail: message.detail ?? "", on: connection)
                    }
                    if message.type == .ack, message.replayed != nil, !caughtUp {
                        caughtUp = true
                        return .caughtUp
                    }
                }
                return .answer(message)
            }
            switch seam.take(seq) {
            case .skip:
                return nil
            case .afterGap(let gap):
                queued.append(.event(message))
                return .lost(gap)
            case .next:
                if !caughtUp && seam.isCaughtUp {
                    caughtUp = true
                    queued.append(.caughtUp)
                }
                return .event(message)
            }
        }

        /// Retention removed events after `lastSeq`: name them and replay from the oldest kept.
        private mutating func skipRemoved(detail: String, on connection: StationConnection) -> StationUpdate? {
            let oldest = oldestKeptSeq(inDetail: detail) ?? seam.newestAtConnect + 1
            guard oldest > seam.lastSeq + 1 else { return nil }
            let gap = seam.lastSeq + 1...oldest - 1
            seam.resume(after: oldest - 1)
            do {
                try connection.send(ClientCommand(id: .string(StationFeed.replayID), action: .replay(since: seam.lastSeq)))
            } catch {
                connection.close()
            }
            return .lost(gap)
        }

        private mutating func drop() {
            connection?.close()
            connection = nil
            feed.adopt(nil)
        }
    }
}

/// The oldest seq a `not_available` answer names ("... (the oldest kept is N)"), when it names one.
func oldestKeptSeq(inDetail detail: String) -> UInt64? {
    guard let range = detail.firstRange(of: "oldest kept is ") else { return nil }
    // ASCII digits by their bytes: a digit followed by a combining mark is one Character, which UInt64 refuses.
    return UInt64(Substring(detail[range.upperBound...].utf8.prefix { (0x30...0x39).contains($0) }))
}
