import Foundation
import Harness
import POSIXSupport
import Synchronization

/// A subscriber watching verdicts on a thread of its own, which times each verdict line the moment it arrives, on
/// this process's clock: the end of a tap, measured whatever the benchmark's task is doing at that moment.
///
/// The task waiting for a verdict sleeps until this thread resumes it: no polling beside the daemon during a tap
/// (the HTTP floor has none either).
final class VerdictArrivals: Sendable {
    struct Arrival: Sendable {
        let at: ContinuousClock.Instant
        /// The wall clock at the same moment, for the daemon's own figure (`latency_ms` plus the time since `at`).
        let wallClock: Date
        let line: String
    }

    /// The task waiting for the `index`th verdict until `deadline`.
    private struct Waiter {
        let index: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Arrival, any Error>
    }

    private struct State {
        var ready = false
        var arrivals: [Arrival] = []
        var failure: String?
        var stopping = false
        var waiter: Waiter?

        /// The waiter to resume and how, once its verdict came, the subscriber failed or its time ran out.
        mutating func settledWaiter(now: ContinuousClock.Instant) -> (Waiter, Result<Arrival, any Error>)? {
            guard let waiter else { return nil }
            let result: Result<Arrival, any Error>
            if arrivals.count > waiter.index {
                result = .success(arrivals[waiter.index])
            } else if let failure {
                result = .failure(BenchFailure("the subscriber: \(failure)"))
            } else if stopping || now >= waiter.deadline {
                result = .failure(BenchFailure("no verdict after a tap"))
            } else {
                return nil
            }
            self.waiter = nil
            return (waiter, result)
        }
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
                    guard let line = try subscriber.readLine(timeout: .milliseconds(200)) else {
                        resumeSettledWaiter()
                        continue
                    }
                    let (at, wallClock) = (ContinuousClock.now, Date())
                    state.withLock { state in
                        if line.contains("\"type\":\"verdict\"") {
                            state.arrivals.append(Arrival(at: at, wallClock: wallClock, line: line))
                        } else if line.contains("\"state\":\"ready\"") {
                            state.ready = true
                        }
                    }
                    resumeSettledWaiter()
                }
            } catch {
                state.withLock { $0.failure = "\(error)" }
            }
            resumeSettledWaiter()
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
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.waiter = Waiter(index: index, deadline: .now + timeout, continuation: continuation) }
            resumeSettledWaiter()
        }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        ended.wait()
        resumeSettledWaiter()
    }

    private func resumeSettledWaiter() {
        guard let (waiter, result) = state.withLock({ $0.settledWaiter(now: .now) }) else { return }
        waiter.continuation.resume(with: result)
    }
}
