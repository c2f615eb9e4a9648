import StationWire
import Synchronization

/// Passport reads that came back whole, kept for `lifetime`: the same question again within it (a kiosk page asks
/// for the panel, then for its certificate's code) costs no call against the API's limits. Bounded by the bytes the
/// reads keep (`PassportReads.keptBytes`), not only by their number.
final class PassportCache: Sendable {
    struct Key: Sendable, Hashable {
        let product: ProductSubject
        let tier: AccessTier
        let parts: Set<PassportPart>
    }

    static let lifetime = Duration.seconds(60)
    static let capacity = 256
    static let byteLimit = 4 << 20

    /// Each entry with the bytes it keeps, counted once when it is kept.
    private let kept = Mutex<[Key: (reads: PassportReads, at: ContinuousClock.Instant, bytes: Int)]>([:])

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
            let size = reads.keptBytes
            var bytes = kept.values.reduce(size) { $0 + $1.bytes }
            while kept.count >= Self.capacity || bytes > Self.byteLimit, let oldest = kept.min(by: { $0.value.at < $1.value.at }) {
                bytes -= oldest.value.bytes
                kept[oldest.key] = nil
            }
            kept[key] = (reads, now, size)
        }
    }
}
