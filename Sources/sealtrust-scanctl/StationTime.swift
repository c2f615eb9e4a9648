import Glibc
import StationWire

/// A time the API wrote (RFC 3339, with any offset) as the station's clock shows it: `2025-09-14 18:45:12 CEST`. An
/// operator compares it with the station's logs, not with the offset of whoever recorded it.
enum StationTime {
    /// The text as it is when it is not RFC 3339.
    static func local(_ text: String) -> String {
        guard let milliseconds = EventTime.milliseconds(text) else { return text }
        var instant = time_t(milliseconds / 1_000)
        var local = tm()
        guard localtime_r(&instant, &local) != nil else { return text }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S %Z", &local)
        guard count > 0 else { return text }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
