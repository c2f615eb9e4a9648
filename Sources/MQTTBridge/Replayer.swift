import StationClient
import StationWire
import Synchronization

/// Answers consumers' replay requests from the daemon's journal, one request at a time, at most `eventsPerSecond`
/// republished: a consumer that asks for much cannot push the broker or the daemon harder than that, and the live
/// events keep their own path. Each waiting range gets one answer (`ReplayAnswer`), also when it is refused or its
/// range was removed by retention; a request for a range that already waits joins it, so that one consumer asking
/// the same again and again does not hold the queue.
final class Replayer: Sendable {
    static let eventsPerSecond = 2_000
    /// Requests waiting beyond this are refused at once ("busy"), not queued without end.
    static let queueLimit = 64
    /// What all waiting requests may ask for together: two whole requests (at 2,000 a second, 100 s of work); beyond,
    /// "busy". A flood of distinct large ranges cannot hold real repairs behind it for longer.
    static let waitingEventsLimit = 2 * ReplayRequest.largestRange

    /// What the retained status says of the replays.
    struct Progress: Sendable, Equatable {
        var waiting = 0
        var answered = 0
        var republished = 0
        var current: String?
    }

    private struct State {
        var progress = Progress()
        /// The ranges waiting, not yet taken by `run`.
        var queued: Set<ReplayRequest> = []
        var queuedEvents: UInt64 = 0
    }

    /// How the replayer reaches the broker: an event or an answer, each waiting for a connected session; false when stopping.
    struct Outlet: Sendable {
        /// An event's line on its type's topic.
        let publishEvent: @Sendable (_ line: String, _ type: MessageType) async -> Bool
        let publishAnswer: @Sendable (ReplayAnswer) async -> Bool
    }

    private let socketPath: String
    private let requests: AsyncStream<ReplayRequest>
    private let submitted: AsyncStream<ReplayRequest>.Continuation
    private let state = Mutex(State())

    init(socketPath: String) {
        self.socketPath = socketPath
        (requests, submitted) = AsyncStream.makeStream(of: ReplayRequest.self, bufferingPolicy: .unbounded)
    }

    var progress: Progress { state.withLock { $0.progress } }

    /// A request's payload from the broker; an answer to publish at once when it is refused.
    func submit(payload: [UInt8]) -> ReplayAnswer? {
        let request: ReplayRequest
        do {
            request = try ReplayRequest(payload: payload)
        } catch {
            return .refused(error.reason)
        }
        let refusal = state.withLock { state -> String? in
            if state.queued.contains(request) { return nil }  // joins the same range, which waits
            guard state.queued.count < Self.queueLimit else { return "busy: \(Self.queueLimit) requests wait; ask again later" }
            guard state.queuedEvents + request.size <= Self.waitingEventsLimit else {
                return "busy: \(state.queuedEvents) events are asked for already; ask again later"
            }
            state.queued.insert(request)
            state.queuedEvents += request.size
            state.progress.waiting = state.queued.count
            submitted.yield(request)
            return nil
        }
        return refusal.map(ReplayAnswer.refused)
    }

    /// Serves the requests until cancelled.
    func run(_ outlet: Outlet) async {
        for await request in requests {
            state.withLock { state in
                state.queued.remove(request)
                state.queuedEvents -= request.size
                state.progress.waiting = state.queued.count
                state.progress.current = request.toNewest ? "from \(request.first)" : "\(request.first) to \(request.last)"
            }
            let answer = await serve(request, outlet)
            state.withLock {
                $0.progress.current = nil
                $0.progress.answered += 1
            }
            if Task.isCancelled { return }
            guard await outlet.publishAnswer(answer) else { return }
        }
    }

    private func serve(_ request: ReplayRequest, _ outlet: Outlet) async -> ReplayAnswer {
        var answer = ReplayAnswer(for: request)
        let feed = StationFeed(socketPath: socketPath, since: request.first - 1)
        let started = ContinuousClock.now
        var failures = 0
        var reached = request.first - 1
        // The same hold as the live events': a chip's scan goes again exactly as it first went, and never ahead of
        // its verdict (a range may end between the two: the hold reads on until the verdict comes or the journal ends).
        var chipScans = ChipScanHold()
        reading: for await update in feed {
            let releases: [ChipScanHold.Release]
            switch update {
            case .event(let event):
                guard let seq = event.seq else { continue }
                releases = chipScans.take(line: event.line, json: event.json, seq: seq, now: Bridge.wallClock())
            case .lost(let range):
                releases = chipScans.take(lost: range, now: Bridge.wallClock())
            case .caughtUp, .journalBehind:
                break reading
            case .disconnected(let error, _):
                failures += 1
                if failures >= 3 {
                    answer.refusal = "the daemon cannot be reached (\(error.description.printable)); ask again later"
                    break reading
                }
                continue
            case .connected, .answer:
                continue
            }
            for release in releases {
                switch release {
                case .event(let seq, let type, let line):
                    if seq > request.last { break reading }
                    guard await outlet.publishEvent(line, type) else { break reading }
                    reached = seq
                    answer.sent += 1
                    state.withLock { $0.progress.republished += 1 }
                    // Paced: the n-th event goes no sooner than n / eventsPerSecond after the start.
                    let due = started + .seconds(Double(answer.sent) / Double(Self.eventsPerSecond))
                    if due > ContinuousClock.now { try? await Task.sleep(until: due) }
                case .lost(let range):
                    let end = min(request.last, range.upperBound)
                    if range.lowerBound <= end {
                        answer.gone = (answer.gone?.lowerBound ?? range.lowerBound)...end
                        reached = end
                    }
                    if range.upperBound >= request.last { break reading }
                }
            }
        }
        if request.toNewest { answer.last = max(reached, request.first - 1) }
        return answer
    }
}
