import Foundation
import DaemonConfiguration
import Testing

/// Every number a station's operator can set has a range; a value outside it is a configuration error
/// (exit 2 with one line), never a crash later on.
@Suite struct ConfigurationRangeTests {
    @Test func feedbackIsAutoOrNone() throws {
        #expect(try options([]).feedback, "LED and buzzer by default")
        #expect(try options(["--feedback", "none"]).feedback == false)
        #expect(try options(["--feedback", "auto"]).feedback)
        #expect(problem(["--feedback", "loud"]) == "--feedback: bad value 'loud' for 'feedback': expected auto or none")
    }

    @Test(arguments: [
        ("--rescan-after", "1e16", "expected seconds from 0 to 3600"),
        ("--rescan-after", "-1", "expected seconds from 0 to 3600"),
        ("--api-timeout", "1e300", "expected seconds from 0.1 to 300"),
        ("--api-timeout", "0", "expected seconds from 0.1 to 300"),
        ("--max-clients", "100000000000", "expected a whole number from 1 to 65536"),
        ("--client-queue", "1024", "expected a whole number from 65536 to 1073741824"),
        ("--client-queue", "99999999999999999999", "expected a whole number from 65536 to 1073741824"),
        ("--journal-max-bytes", "9223372036854775807", "expected a whole number from 1048576 to 1099511627776"),
        ("--journal-max-age", "1e300", "expected days from 0.001 to 36500"),
        ("--latitude", "nan", "expected degrees from -90 to 90"),
    ])
    func aNumberOutsideItsRangeIsRefusedWithTheRange(flag: String, value: String, reason: String) {
        let extra = flag == "--latitude" ? ["--longitude", "4.8"] : []
        #expect(problem([flag, value] + extra) == "\(flag): bad value '\(value)' for '\(flag.dropFirst(2))': \(reason)")
    }

    @Test func theEdgesOfEachRangeAreAccepted() throws {
        let edges = try options(["--rescan-after", "3600", "--api-timeout", "300", "--max-clients", "65536",
                                 "--client-queue", "65536", "--journal-max-bytes", "1048576", "--journal-max-age", "36500"])
        #expect(edges.rescanAfter == 3600 && edges.apiTimeout == 300 && edges.maxClients == 65536)
        #expect(edges.clientQueueBytes == 65536 && edges.journalMaxBytes == 1_048_576 && edges.journalMaxAgeDays == 36500)
    }

    @Test func anEmptyConfigurationFileSuchAsDevNullIsAccepted() throws {
        #expect(try options(["--config", "/dev/null"]).configPath == "/dev/null")
    }

    @Test func aConfigurationFileOverOneMebibyteIsRefusedNotReadForEver() {
        #expect(problem(["--config", "/dev/zero"]) == "/dev/zero: the configuration file is larger than 1 MiB")
    }

    @Test func aFileSavedWithCRLFLineEndsReadsLineByLineAndControlCharactersAreShownEscaped() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("crlf-\(UUID().uuidString).conf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "lang = fr\r\napi-timeout = 5\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        let read = try options(["--config", path])
        #expect(read.language == .fr && read.apiTimeout == 5)
        try "station = a\u{1b}[2Jb\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(problem(["--config", path]) == "\(path):1: bad value 'a\\x1b[2Jb' for 'station': the station's name has a control character")
        try "station = ab\r\nlang = \u{1b}]0;pwned\u{07}\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(problem(["--config", path]) == "\(path):2: bad value '\\x1b]0;pwned\\x07' for 'lang': expected en or fr")
    }

    @Test func anUpperCaseSchemeIsTheSameScheme() throws {
        #expect(try options(["--api-base", "HTTP://127.0.0.1:8080/v1"]).apiBase.absoluteString == "http://127.0.0.1:8080/v1")
        #expect(try options(["--api-base", "HtTpS://api.example"]).apiBase.scheme == "https")
    }
}
