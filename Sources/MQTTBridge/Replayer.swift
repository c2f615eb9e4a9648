import StationClient
import StationWire
import Synchronization

/// Answers consumers' replay requests from the daemon's journal, one request at a time, at most `eventsPerSecond`
/// republished: a consumer that asks for much cannot push the broker or the daemon harder than that, and the live
/// events keep their own path. Each request gets one answer (`ReplayAnswer`), also when it is refused or its range
/// was removed by retention.
final class Replayer: Sendable {
    static let eventsPerSecond = 2_000
    /// Requests waiting beyond this are refused at once ("busy"), not queued without end.
    static let queueLimit = 64

    /// What the retained status says of the replays.
    struct Progress: Sendable, Equatable {
        var waiting = 0
        var answered = 0
        var republished = 0
        var current: String?
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
    private let state = Mutex(Progress())

    init(socketPath: String) {
        self.socketPath = socketPath
        (requests, submitted) = AsyncStream.makeStream(of: ReplayRequest.self, bufferingPolicy: .unbounded)
    }

    var progress: Progress { state.withLock { $0 } }

    /// A request's payload from the broker; an answer to publish at once when it is refused.
    func submit(payload: [UInt8]) -> ReplayAnswer? {
        let request: ReplayRequest
        do {
            request = try ReplayRequest(payload: payload)
        } catch {
            return .refused(error.reason)
        }
        let accepted = state.withLock { progress -> Bool in
            guard progress.waiting < Self.queueLimit else { return false }
            progress.waiting += 1
            return true
        }
        guard accepted else { return .refused("busy: \(Self.queueLimit) requests wait; ask again later") }
        submitted.yield(request)
        return nil
    }

    /// Serves the requests until cancelled.
    func run(_ outlet: Outlet) async {
        for await request in requests {
            state.withLock {
                $0.waiting -= 1
                $0.current = request.last.map { "\(request.first) to \($0)" } ?? "from \(request.first)"
            }
            let answer = await serve(request, outlet)
            state.withLock {
                $0.current = nil
                $0.answered += 1
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
                    if let last = request.last, seq > last { break reading }
                    guard await outlet.publishEvent(line, type) else { break reading }
                    reached = seq
                    answer.sent += 1
                    state.withLock { $0.republished += 1 }
                    // Paced: the n-th event goes no sooner than n / eventsPerSecond after the start.
                    let due = started + .seconds(Double(answer.sent) / Double(Self.eventsPerSecond))
                    if due > ContinuousClock.now { try? await Task.sleep(until: due) }
                case .lost(let range):
                    let end = request.last.map { min($0, range.upperBound) } ?? range.upperBound
                    if range.lowerBound <= end {
                        answer.gone = (answer.gone?.lowerBound ?? range.lowerBound)...end
                        reached = end
                    }
                    if let last = request.last, range.upperBound >= last { break reading }
                }
            }
        }
        if request.last == nil { answer.last = max(reached, request.first - 1) }
        return answer
    }
}
