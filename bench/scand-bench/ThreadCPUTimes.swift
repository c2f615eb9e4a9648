import Foundation

/// The processor time of each of a process's threads so far, by name, from /proc (`schedstat`, in nanoseconds): what a
/// tap costs the processors, which a two-core station shares with pcscd, the reader and the API's connection.
struct ThreadCPUTimes {
    private(set) var nanosecondsByThread: [String: Int] = [:]

    init(pid: Int32) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let directory = "/proc/\(pid)/task/\(task)"
            let name = ((try? String(contentsOfFile: directory + "/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
            let schedstat = (try? String(contentsOfFile: directory + "/schedstat", encoding: .utf8)) ?? ""
            nanosecondsByThread[name, default: 0] += Int(schedstat.split(separator: " ").first ?? "") ?? 0
        }
    }

    /// Each thread's time since `earlier`, those that ran, by name.
    func since(_ earlier: ThreadCPUTimes) -> [(name: String, nanoseconds: Int)] {
        nanosecondsByThread.map { ($0.key, $0.value - (earlier.nanosecondsByThread[$0.key] ?? 0)) }
            .filter { $0.1 > 0 }.sorted { $0.0 < $1.0 }
    }
}
