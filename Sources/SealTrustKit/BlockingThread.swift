#if canImport(Glibc)
import Glibc
#endif

/// Runs a blocking C call (connect, TLS, poll) on a thread of its own, so that no thread of Swift's
/// cooperative pool ever waits on the network.
enum BlockingThread {
    /// The value `work` hands to `deliver`, computed on a new thread. `work` must call `deliver` exactly once; what it does
    /// after that (open the next connection) runs on the thread without delaying the caller.
    static func run<Value: Sendable>(_ work: @escaping @Sendable (_ deliver: (Value) -> Void) -> Void) async -> Value {
        await withCheckedContinuation { continuation in
            start {
                work { continuation.resume(returning: $0) }
            }
        }
    }

    /// Blocks the calling thread, one of ours, for `duration`: a retry's back-off between two blocking calls.
    static func pause(for duration: Duration) {
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = end.tv_nsec + Int(attoseconds / 1_000_000_000)
        end.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        end.tv_nsec = nanoseconds % 1_000_000_000
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, nil) == EINTR {}
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
