import Glibc

/// RFC 3339 timestamps in UTC with milliseconds, the form every event's `at` takes.
public enum Timestamp {
    /// The current time, as seconds since the epoch and as its RFC 3339 text.
    public static func now() -> (seconds: Double, text: String) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let milliseconds = Int(spec.tv_nsec / 1_000_000)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let text = pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2)
            + ":" + pad(Int(parts.tm_sec), 2) + "." + pad(milliseconds, 3) + "Z"
        return (Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9, text)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
