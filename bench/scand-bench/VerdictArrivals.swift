import Foundation
import Harness
import POSIXSupport
import Synchronization

/// A subscriber watching verdicts on a thread of its own, which times each verdict line the moment it arrives, on
/// this process's clock: the end of a tap, measured whatever the benchmark's task is doing at that moment.
final class VerdictArrivals: Sendable {
    struct Arrival: Sendable {
        let at: ContinuousClock.Instant
        /// The wall clock at the same moment, for the daemon's own figure (`latency_ms` plus the time since `at`).
        let wallClock: Date
        let line: String
    }

    private struct State {
        var ready = false
        var arrivals: [Arrival] = []
        var failure: String?
        var stopping = false
    }

    private let state = Mutex(State())
    private let ended = ThreadSignal()

    /// Subscribes to `socketPath` and returns once a reader is ready (the hello or a `source` event says so).
    init(socketPath: String) async throws {
        OSThread.start(name: "bench-verdicts") { [self] in
            defer { ended.signal() }
            do {
                let subscriber = try LineClient(path: socketPath)
                // The hello lists the sources: a reader may be ready already.
                if try subscriber.readLine(timeout: .seconds(10))?.contains("\"state\":\"ready\"") == true {
                    state.withLock { $0.ready = true }
                }
                try subscriber.send("{\"cmd\":\"watch\",\"events\":[\"verdict\",\"source\"]}")
                while !state.withLock({ $0.stopping }) {
                    guard let line = try subscriber.readLine(timeout: .milliseconds(200)) else { continue }
                    let (at, wallClock) = (ContinuousClock.now, Date())
                    state.withLock { state in
                        if line.contains("\"type\":\"verdict\"") {
                            state.arrivals.append(Arrival(at: at, wallClock: wallClock, line: line))
                        } else if line.contains("\"state\":\"ready\"") {
                            state.ready = true
                        }
                    }
                }
            } catch {
                state.withLock { $0.failure = "\(error)" }
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !state.withLock({ $0.ready }) {
            if let failure = state.withLock({ $0.failure }) { throw BenchFailure("the subscriber: \(failure)") }
            guard ContinuousClock.now < deadline else { throw BenchFailure("no reader became ready at the daemon") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The `index`th verdict (from 0), once it has arrived, waiting up to `timeout`.
    func verdict(_ index: Int, timeout: Duration) async throws -> Arrival {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (arrival, failure) = state.withLock { ($0.arrivals.count > index ? $0.arrivals[index] : nil, $0.failure) }
            if let arrival { return arrival }
            if let failure { throw BenchFailure("the subscriber: \(failure)") }
            guard ContinuousClock.now < deadline else { throw BenchFailure("no verdict after a tap") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        ended.wait()
    }
}
