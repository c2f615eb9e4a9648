import Glibc

/// CLOCK_MONOTONIC in nanoseconds: one clock for the server and the subscribers, across processes.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The p-th percentile (0...100) of sorted values, by nearest rank.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

func formatted(_ value: Double, decimals: Int = 2) -> String {
    let scale = Double(Int(pow(10.0, Double(decimals))))
    return String((value * scale).rounded() / scale)
}
