import Foundation
import Glibc
import JSONCore
import ScanJournal
import StationWire
import VerdictSocket

/// The server process of the benchmark: a real journal and verdict server, driven by
/// stdin lines (`publish COUNT INTERVAL_MS PADDING`, `quit`) and answering on stdout.
final class BenchServer: VerdictServerDelegate {
    let journal: Journal

    init(journal: Journal) {
        self.journal = journal
    }

    func helloFields() -> [(String, JSON)] {
        [("version", "0.1.0"), ("station", "bench"), ("sources", []), ("last_seq", .int(Int64(journal.lastSeq)))]
    }

    func statusFields() -> [(String, JSON)] {
        [("version", "0.1.0"), ("uptime_s", 0), ("sources", []), ("counters", .object([])), ("last_seq", .int(Int64(journal.lastSeq)))]
    }

    func verify(raw: String, requestID: JSON?, from client: ClientID) {}

    /// The benchmark's clients ask for no product.
    func passport(_ query: PassportQuery, requestID: JSON, from client: ClientID) -> JSON? {
        ServerAnswer.error(.notAvailable, "the benchmark knows no product", id: requestID)
    }

    static func run(socketPath: String, journalPath: String) {
        do {
            let journal = try Journal(path: journalPath)
            let server = VerdictServer(
                configuration: VerdictServerConfiguration(path: socketPath, maxClients: 4_096))
            let delegate = BenchServer(journal: journal)
            try server.start(journal: journal, delegate: delegate)
            say("ready")
            while let line = Swift.readLine() {
                let words = line.split(separator: " ")
                if words.first == "publish", words.count == 4, let count = Int(words[1]), let interval = Int(words[2]),
                    let padding = Int(words[3])
                {
                    let filler = JSON.string(String(repeating: "x", count: padding))
                    var appendTimes: [Double] = []
                    let cpuBefore = processCPUMilliseconds()
                    for _ in 0..<count {
                        let created = monotonicNanoseconds()
                        let event = try journal.append(
                            type: "verdict",
                            fields: [
                                ("created_ns", .int(Int64(created))), ("scan_id", "bench"), ("outcome", "authentic"),
                                ("product_name", "Chronograph 42"), ("brand", "Maison Exemple"), ("padding", filler),
                            ])
                        appendTimes.append(Double(monotonicNanoseconds() - created) / 1e6)
                        server.publish(event)
                        usleep(useconds_t(interval * 1_000))
                    }
                    appendTimes.sort()
                    usleep(200_000)
                    let cpuPerEvent = (processCPUMilliseconds() - cpuBefore) / Double(count)
                    say("published \(count) cpu_ms_per_event \(formatted(cpuPerEvent, decimals: 3)) append_p50_ms \(formatted(percentile(appendTimes, 50), decimals: 3)) append_p99_ms \(formatted(percentile(appendTimes, 99), decimals: 3)) clients \(server.clientCount)")
                } else if words.first == "clients" {
                    say("clients \(server.clientCount)")
                } else if words.first == "quit" {
                    break
                }
            }
            server.stop()
            journal.close()
        } catch {
            say("error \(error)")
        }
    }

    /// User and system time of the whole server process: the fan-out's cost whatever the machine's load.
    private static func processCPUMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
    }

    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
