import Foundation
import Harness
import JSONCore
import ScanJournal

/// A journal as a station that has worked for a while leaves it: its active segment nearly full (the daemon starts a
/// new one at 16 MiB by default), which the daemon reads when it starts. An empty journal hides that cost.
final class FullJournal {
    static let segmentBytes = 16 << 20

    let path: String
    let events: Int
    private let directory: String

    init() throws {
        directory = try makeScratchDirectory("scand-bench-journal")
        path = directory + "/journal"
        let journal = try Journal(path: path)
        defer { journal.close() }
        // Verdict-sized lines: a scan and its verdict together are about 700 bytes in the field.
        let filler = String(repeating: "x", count: 280)
        var bytes = 0
        var events = 0
        while bytes < Self.segmentBytes - 65_536 {
            let event = try journal.append(type: events % 2 == 0 ? "scan" : "verdict",
                                           fields: [("source", "manual"), ("raw", .string("FOREIGN-\(events)-\(filler)")),
                                                    ("code", "foreign")])
            bytes += event.line.utf8.count + 1
            events += 1
        }
        self.events = events
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
