import Synchronization

/// The client's side of the per-endpoint limits: it refuses, before sending, a
/// call that would exceed its bucket's limit in the sliding window, and
/// anything to a bucket still waiting out a 429. It never waits: it answers at once, on the caller's thread.
final class RateLimiter: Sendable {
    private struct Buckets {
        var sent: [APIContract.Bucket: [ContinuousClock.Instant]] = [:]
        var blockedUntil: [APIContract.Bucket: ContinuousClock.Instant] = [:]
    }

    private let window: Duration
    private let buckets = Mutex(Buckets())

    init(window: Duration) {
        self.window = window
    }

    /// Counts one request to `bucket`, or throws `tooManyCalls` with the whole seconds to wait.
    func admit(_ bucket: APIContract.Bucket) throws(SealTrustError) {
        let window = window
        try buckets.withLock { buckets throws(SealTrustError) in
            let now = ContinuousClock.now
            if let until = buckets.blockedUntil[bucket] {
                guard until <= now else { throw .tooManyCalls(retryAfterSeconds: Self.wholeSeconds(until - now)) }
                buckets.blockedUntil[bucket] = nil
            }
            var times = buckets.sent[bucket, default: []].filter { now - $0 < window }
            if times.count >= bucket.limit, let oldest = times.first {
                buckets.sent[bucket] = times
                throw .tooManyCalls(retryAfterSeconds: Self.wholeSeconds(oldest + window - now))
            }
            times.append(now)
            buckets.sent[bucket] = times
        }
    }

    /// After a 429: nothing to `bucket` for `seconds`, an hour at most.
    func block(_ bucket: APIContract.Bucket, seconds: Int) {
        let until = ContinuousClock.now + .seconds(min(seconds, APIContract.longestRetryAfterSeconds))
        buckets.withLock { $0.blockedUntil[bucket] = until }
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
