import StationWire
import Synchronization

/// Passport reads that came back whole, kept for `lifetime`: the same question again within it (a kiosk page asks
/// for the panel, then for its certificate's code) costs no call against the API's limits.
final class PassportCache: Sendable {
    struct Key: Sendable, Hashable {
        let product: ProductSubject
        let tier: AccessTier
        let parts: Set<PassportPart>
    }

    static let lifetime = Duration.seconds(60)
    static let capacity = 256

    private let kept = Mutex<[Key: (reads: PassportReads, at: ContinuousClock.Instant)]>([:])

    func reads(for key: Key, at now: ContinuousClock.Instant) -> PassportReads? {
        kept.withLock { kept in
            guard let entry = kept[key], now - entry.at < Self.lifetime else { return nil }
            return entry.reads
        }
    }

    /// Keeps `reads`, first forgetting what is older than `lifetime`, then the oldest while full.
    func keep(_ reads: PassportReads, for key: Key, at now: ContinuousClock.Instant) {
        kept.withLock { kept in
            kept = kept.filter { now - $0.value.at < Self.lifetime }
            while kept.count >= Self.capacity, let oldest = kept.min(by: { $0.value.at < $1.value.at }) {
                kept[oldest.key] = nil
            }
            kept[key] = (reads, now)
        }
    }
}
