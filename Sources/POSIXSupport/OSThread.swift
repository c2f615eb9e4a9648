import Glibc

/// A dedicated OS thread for one blocking C call loop (poll, SCardGetStatusChange, V4L2 reads, zbar).
///
/// Everything else runs as structured concurrency; only code that must block a thread starts one of these.
/// The thread inherits the creator's signal mask, so signals the daemon blocks stay blocked here too.
public enum OSThread {
    /// Starts `body` on a new detached thread named `name` (at most 15 bytes show in `ps -L`).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let result = create(name: name, body)
        guard result == 0 else { fatalError("pthread_create: \(Errno(result))") }
    }

    /// The same, except that when the system refuses a thread (EAGAIN at its limit) `body` runs on the caller's:
    /// late, but never lost.
    public static func startOrRunHere(name: String, _ body: @escaping @Sendable () -> Void) {
        if create(name: name, body) != 0 { body() }
    }

    /// Blocks the calling thread, one of ours, for `duration` on the monotonic clock, whatever signals come.
    public static func pause(for duration: Duration) {
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = end.tv_nsec + Int(attoseconds / 1_000_000_000)
        end.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        end.tv_nsec = nanoseconds % 1_000_000_000
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, nil) == EINTR {}
    }

    /// Blocks the calling thread for `duration`, waking every `slice` to ask `stopped`, so that a stop is not held
    /// up by the rest of the wait.
    public static func pause(for duration: Duration, checkingEvery slice: Duration, unless stopped: () -> Bool) {
        let deadline = ContinuousClock.now + duration
        while !stopped() {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            pause(for: min(left, slice))
        }
    }

    /// pthread_create's result: 0 once the detached thread runs `body`.
    private static func create(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let start = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            OSThread.setCurrentName(start.name)
            start.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return result
        }
        pthread_detach(thread)
        return 0
    }

    /// Names the calling thread through /proc, which every thread may write for itself.
    public static func setCurrentName(_ name: String) {
        guard let descriptor = try? FileDescriptor.open("/proc/thread-self/comm", O_WRONLY) else { return }
        let file = OwnedDescriptor(descriptor)
        try? FileDescriptor.writeAll(file.rawValue, name.utf8.prefix(15))
    }
}

private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
