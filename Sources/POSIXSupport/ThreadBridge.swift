/// The one way from a dedicated OS thread into async code: the thread `send`s, one task iterates `elements`.
///
/// Sending never blocks the thread and never drops: a reader thread must not wait for the pipeline.
public final class ThreadBridge<Element: Sendable>: Sendable {
    public let elements: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation

    public init() {
        (elements, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
    }

    /// `body` runs once the consumer stops iterating or is cancelled: the place to stop the thread.
    public func onTermination(_ body: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in body() }
    }

    /// Callable from any thread.
    public func send(_ element: Element) {
        continuation.yield(element)
    }

    /// Ends `elements` after what was sent.
    public func finish() {
        continuation.finish()
    }
}

extension OSThread {
    /// Runs `body` on a dedicated thread and returns once it has ended. Cancelling the caller calls `stop`,
    /// which must make `body` return soon; the caller still waits for the end, so nothing the thread owns outlives it.
    public static func run(name: String, stop: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
                start(name: name) {
                    body()
                    ended.resume()
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// The value `work` hands to `deliver`, computed on a thread of its own (the caller's when the system refuses
    /// one). `work` calls `deliver` exactly once; what it does after that runs on the thread without delaying the caller.
    public static func value<Value: Sendable>(name: String,
                                             _ work: @escaping @Sendable (_ deliver: (Value) -> Void) -> Void) async -> Value {
        await withCheckedContinuation { (delivered: CheckedContinuation<Value, Never>) in
            startOrRunHere(name: name) {
                work { delivered.resume(returning: $0) }
            }
        }
    }
}
