import StationClient
import StationWire

/// Serves the replay requests `ReplayQueue` admitted, one at a time, from the daemon's journal, at most
/// `eventsPerSecond` republished: a consumer that asks for much cannot push the broker or the daemon harder than that,
/// and the live events keep their own path. Each request gets one answer (`ReplayAnswer`), also when its range was
/// removed by retention.
struct Replayer: Sendable {
    static let eventsPerSecond = 2_000

    /// How the replayer reaches the broker and the bridge's rules: an event or an answer, each waiting for a connected
    /// session (false when stopping), and its progress.
    struct Outlet: Sendable {
        /// An event's line on its type's topic.
        let publishEvent: @Sendable (_ line: String, _ type: MessageType) async -> Bool
        let publishAnswer: @Sendable (ReplayAnswer) async -> Bool
        let started: @Sendable (ReplayRequest) -> Void
        let republished: @Sendable () -> Void
        let answered: @Sendable () -> Void
    }

    let socketPath: String

    /// Serves `requests` until cancelled.
    func run(_ requests: AsyncStream<ReplayRequest>, _ outlet: Outlet) async {
        for await request in requests {
            outlet.started(request)
            let answer = await serve(request, outlet)
            outlet.answered()
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
                    outlet.republished()
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
