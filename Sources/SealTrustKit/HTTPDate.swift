/// HTTP's preferred date form (IMF-fixdate, RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`, read
/// without a locale's formatter: the only form `Retry-After` needs.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970, or nil when the text is not an IMF-fixdate.
    static func secondsSince1970(_ text: String) -> Int? {
        let words = text.split(separator: " ")
        guard words.count == 6, words[0].count == 4, words[0].hasSuffix(","), words[5] == "GMT",
              let day = Int(words[1]), (1...31).contains(day), words[1].count == 2,
              let month = months.firstIndex(of: String(words[2])),
              let year = Int(words[3]), (1970...9999).contains(year), words[3].count == 4
        else { return nil }
        let clock = words[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return daysSince1970(year: year, month: month + 1, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
