import Synchronization

/// The client's side of the per-endpoint limits: it refuses, before sending, a
/// call that would exceed its bucket's limit in the sliding window, and
/// anything to a bucket still waiting out a 429. It never waits: it answers at once, on the caller's thread.
final class RateLimiter: Sendable {
    private struct Buckets {
        var sent: [APIContract.Bucket: [ContinuousClock.Instant]] = [:]
        /// After a 429, by bucket and by the purpose of the call it answered: a product read's stops product reads.
        var blockedUntil: [BlockKey: ContinuousClock.Instant] = [:]
    }

    private struct BlockKey: Hashable {
        let bucket: APIContract.Bucket
        let purpose: CallPurpose
    }

    private let window: Duration
    private let buckets = Mutex(Buckets())

    init(window: Duration) {
        self.window = window
    }

    /// Counts one request to `bucket`, or throws `tooManyCalls` with the whole seconds to wait. A product read may not
    /// take the slots the bucket keeps for verdicts, and waits out its own 429s as well as verdicts' ones.
    func admit(_ bucket: APIContract.Bucket, for purpose: CallPurpose) throws(SealTrustError) {
        let window = window
        try buckets.withLock { buckets throws(SealTrustError) in
            let now = ContinuousClock.now
            for key in Set([BlockKey(bucket: bucket, purpose: .verdict), BlockKey(bucket: bucket, purpose: purpose)]) {
                guard let until = buckets.blockedUntil[key] else { continue }
                guard until <= now else { throw .tooManyCalls(retryAfterSeconds: Self.wholeSeconds(until - now)) }
                buckets.blockedUntil[key] = nil
            }
            var times = buckets.sent[bucket, default: []].filter { now - $0 < window }
            let limit = purpose == .verdict ? bucket.limit : bucket.limit - bucket.keptForVerdicts
            if times.count >= limit {
                buckets.sent[bucket] = times
                // The slot that frees room for this call: the oldest past what the limit leaves.
                let freeing = times[times.count - limit]
                throw .tooManyCalls(retryAfterSeconds: Self.wholeSeconds(freeing + window - now))
            }
            times.append(now)
            buckets.sent[bucket] = times
        }
    }

    /// After a 429 to a call for `purpose`: nothing to `bucket` for `seconds` (an hour at most) from calls that wait
    /// out such a 429 (`admit`).
    func block(_ bucket: APIContract.Bucket, seconds: Int, for purpose: CallPurpose) {
        let until = ContinuousClock.now + .seconds(min(seconds, APIContract.longestRetryAfterSeconds))
        buckets.withLock { $0.blockedUntil[BlockKey(bucket: bucket, purpose: purpose)] = until }
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
