import Glibc

/// A time the API wrote (RFC 3339, with any offset) as the station's clock shows it: `2025-09-14 18:45:12 CEST`. An
/// operator compares it with the station's logs, not with the offset of whoever recorded it.
enum StationTime {
    /// The text as it is when it is not RFC 3339.
    static func local(_ text: String) -> String {
        guard let seconds = secondsSince1970(text) else { return text }
        var instant = time_t(seconds)
        var local = tm()
        guard localtime_r(&instant, &local) != nil else { return text }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S %Z", &local)
        guard count > 0 else { return text }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, to the second; nil for anything else.
    static func secondsSince1970(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int32? {
            guard from + count <= bytes.count else { return nil }
            var value: Int32 = 0
            for byte in bytes[from..<(from + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int32(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, [0x54, 0x74, 0x20].contains(bytes[10]),
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if bytes[index] == 0x2E {
            index += 1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        if bytes[index] == 0x5A || bytes[index] == 0x7A {
            guard index + 1 == bytes.count else { return nil }
        } else {
            guard bytes[index] == 0x2B || bytes[index] == 0x2D, index + 6 == bytes.count, bytes[index + 3] == 0x3A,
                  let hours = number(index + 1, 2), let minutes = number(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = (Int64(hours) * 3_600 + Int64(minutes) * 60) * (bytes[index] == 0x2B ? 1 : -1)
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int64(timegm(&parts)) - offset
    }
}
