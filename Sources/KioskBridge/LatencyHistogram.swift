/// The verdicts' `latency_ms` as a Prometheus histogram, in seconds.
struct LatencyHistogram: Sendable {
    /// Upper bounds in seconds: a tap answers in tens of milliseconds, a slow API in seconds.
    static let bounds: [Double] = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    /// A latency beyond this is not a number we trust (a clock jump, or garbage).
    static let longestMilliseconds: Int64 = 3_600_000

    private(set) var counts = [UInt64](repeating: 0, count: bounds.count)
    private(set) var total: UInt64 = 0
    private(set) var sumSeconds = 0.0

    mutating func record(milliseconds: Int64) {
        guard (0...Self.longestMilliseconds).contains(milliseconds) else { return }
        let seconds = Double(milliseconds) / 1000
        for (index, bound) in Self.bounds.enumerated() where seconds <= bound {
            counts[index] += 1
        }
        total += 1
        sumSeconds += seconds
    }
}
