import Glibc

/// Wakes one dedicated OS thread from another (a POSIX semaphore): for threads blocked outside async code.
public final class ThreadSignal: @unchecked Sendable {
    // sem_t must not move: it lives in its own allocation for the object's life. The sem_* calls are thread-safe.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    public init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    public func signal() {
        sem_post(semaphore)
    }

    /// Waits for a signal.
    public func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }

    /// Waits for a signal at most `timeout`; false when the time ran out first.
    public func wait(timeout: Duration) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
