import Glibc

/// poll(2) as a typed call, in the manner of swift-system: errno as a value, an interrupted wait resumed here with
/// what is left of its deadline, and no policy: what to wait on, for how long, and what readiness means stay the
/// caller's. A negative descriptor in the set is skipped, as poll(2) skips it.
public enum Poll {
    /// Waits until one of `descriptors` is ready or `deadline` passes (nil: no deadline; a deadline already past
    /// only looks). Each one's `revents` is filled; returns how many are ready, 0 at the deadline.
    public static func wait(_ descriptors: inout [pollfd], until deadline: ContinuousClock.Instant?) throws(Errno) -> Int {
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds(until: deadline))
            if ready >= 0 { return Int(ready) }
            let failure = Errno.current
            guard failure.rawValue == EINTR else { throw failure }
        }
    }

    /// The same for one descriptor: its `revents` (0 at the deadline).
    public static func wait(on descriptor: Int32, for events: Int16, until deadline: ContinuousClock.Instant?) throws(Errno) -> Int16 {
        var descriptors = [pollfd(fd: descriptor, events: events, revents: 0)]
        _ = try wait(&descriptors, until: deadline)
        return descriptors[0].revents
    }

    /// poll(2)'s timeout for `deadline`: -1 for none, rounded up so that a wait never ends before it.
    private static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline)
        return left > .zero ? Int32(clamping: left.roundedUpMilliseconds) : 0
    }
}
