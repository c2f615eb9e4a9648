import Glibc

/// RFC 3339 times as milliseconds since the epoch: an event's `at` (UTC, as the journal writes it), so that a reader on
/// the station's clock can tell how old an event is, and the API's times, with any offset. The one reader of them.
public enum EventTime {
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for any other form: an age that cannot be read is no age.
    public static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            // ".S" to ".SSSSSSSSS": milliseconds from the first three digits.
            let start = index + 1
            index = start
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            let digits = index - start
            guard (1...9).contains(digits), let milliseconds = number(bytes, start, min(3, digits)) else { return nil }
            fraction = milliseconds * [100, 10, 1][min(3, digits) - 1]
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            guard index + 1 == bytes.count else { return nil }
        } else {
            guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), index + 6 == bytes.count,
                  bytes[index + 3] == 0x3A, let hours = number(bytes, index + 1, 2), let minutes = number(bytes, index + 4, 2),
                  hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return seconds * 1_000 + fraction
    }

    /// Now on the station's wall clock, in milliseconds since the epoch.
    public static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Days from 1970-01-01 (Howard Hinnant's days_from_civil).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `count` ASCII digits from `start`; nil past the end or for anything else.
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }
}
