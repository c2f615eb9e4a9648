import Synchronization

/// Dedicated threads for blocking work that must start at once when it comes (an API call on a scan's path):
/// a parked thread is woken by one semaphore post instead of a thread being created and named each time, which on a
/// small virtual machine costs a tap 0.15 to 0.2 ms. A thread parked longer than `idleLimit` ends.
public final class ParkedThreads: Sendable {
    private let name: String
    private let idleLimit: Duration
    private let idle = Mutex<[Parked]>([])

    /// `name`: each thread's, at most 15 bytes.
    public init(name: String, idleLimit: Duration = .seconds(60)) {
        self.name = name
        self.idleLimit = idleLimit
    }

    /// Runs `work` on a parked thread, or on a new one when none is parked.
    public func run(_ work: @escaping @Sendable () -> Void) {
        if let parked = idle.withLock({ $0.popLast() }) {
            parked.hand(work)
            return
        }
        let parked = Parked()
        parked.hand(work)
        OSThread.start(name: name) { [self] in serve(parked) }
    }

    private func serve(_ parked: Parked) {
        parked.wake.wait()  // the post of the work it was started for
        while true {
            parked.takeWork()?()
            idle.withLock { $0.append(parked) }
            if parked.wake.wait(timeout: idleLimit) { continue }
            // Timed out: end, unless `run` took this thread meanwhile; then its post is on the way.
            let ends = idle.withLock { idle in
                guard let index = idle.firstIndex(where: { $0 === parked }) else { return false }
                idle.remove(at: index)
                return true
            }
            if ends { return }
            parked.wake.wait()
        }
    }

    /// One thread's mailbox: the work handed to it, and its wake-up.
    private final class Parked: Sendable {
        let wake = ThreadSignal()
        private let work = Mutex<(@Sendable () -> Void)?>(nil)

        func hand(_ next: @escaping @Sendable () -> Void) {
            work.withLock { $0 = next }
            wake.signal()
        }

        /// The work handed over, once its post was taken.
        func takeWork() -> (@Sendable () -> Void)? {
            work.withLock { work in
                defer { work = nil }
                return work
            }
        }
    }
}
