#if canImport(Glibc)
import Glibc
#endif

/// Runs a blocking C call (connect, TLS, poll) on a thread of its own, so that no thread of Swift's
/// cooperative pool ever waits on the network.
enum BlockingThread {
    /// `work`'s value, computed on a new thread, which then runs `afterwards`: what must follow the work but what
    /// the caller need not wait for.
    static func run<Value: Sendable>(afterwards: @escaping @Sendable () -> Void,
                                     _ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            start {
                continuation.resume(returning: work())
                afterwards()
            }
        }
    }

    /// Starts `work` on a detached thread and returns at once. When the system refuses a thread
    /// (EAGAIN at its limit), `work` runs on the caller's: late, but never lost.
    static func start(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Work(work)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        if created != 0 {
            Unmanaged<Work>.fromOpaque(box).takeRetainedValue().body()
        }
    }

    private final class Work {
        let body: @Sendable () -> Void

        init(_ body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }
}
