import Foundation
import Harness

/// One daemon whose taps are measured in turns with the floor, and what its turns gathered: the same release binary
/// runs twice, its journal on the disk and on a tmpfs, so that one run shows what the journal's durability costs a tap.
final class MeasuredDaemon {
    let daemon: BenchDaemon
    let journalFileSystem: String
    let verdicts: VerdictArrivals
    private(set) var taps: [Duration] = []
    private(set) var tapsByDaemonClock: [Duration] = []
    private(set) var serviceTimes: [Duration] = []
    private(set) var stolen = StolenTime.Span()
    private let cpuBefore: ThreadCPUTimes

    init(executable: String, api: SandboxAPI, reader: String, scratch: String) async throws {
        daemon = try BenchDaemon(executable: executable, api: api, nfc: reader, scratch: scratch)
        journalFileSystem = fileSystem(holding: daemon.socketPath)
        verdicts = try await VerdictArrivals(socketPath: daemon.socketPath)
        cpuBefore = ThreadCPUTimes(pid: daemon.pid)
    }

    /// Adds one turn's taps (card-present to the verdict at the subscriber) and the sandbox's time for their calls.
    func add(_ turn: (own: [Duration], daemonClock: [Duration]), serviceTimes served: ArraySlice<Duration>, stolen part: StolenTime.Span) throws {
        guard served.count == turn.own.count else { throw BenchFailure("\(turn.own.count) taps but \(served.count) verify calls") }
        taps += turn.own
        tapsByDaemonClock += turn.daemonClock
        serviceTimes += served
        stolen += part
    }

    /// The taps with the sandbox's own time removed.
    var tapsNet: [Duration] { zip(taps, serviceTimes).map { $0 - $1 } }
    var tapsNetByDaemonClock: [Duration] { zip(tapsByDaemonClock, serviceTimes).map { $0 - $1 } }

    /// Each thread's processor time per tap so far, in milliseconds, and the total.
    func processorTimePerTap() -> String {
        let cpu = ThreadCPUTimes(pid: daemon.pid).since(cpuBefore)
        let perTap = cpu.map { "\($0.name) \(String(format: "%.2f", Double($0.nanoseconds) / 1e6 / Double(taps.count)))" }
        return perTap.joined(separator: ", ") + "; total " + String(format: "%.2f", Double(cpu.map(\.nanoseconds).reduce(0, +)) / 1e6 / Double(taps.count))
    }

    func stop() {
        verdicts.stop()
        daemon.stop()
    }
}

/// The type of the file system holding `path` (its mount, from /proc/self/mounts): whether an fdatasync there
/// reaches a disk.
func fileSystem(holding path: String) -> String {
    // Read to its end: `String(contentsOfFile:)` stops after the first page of a /proc file.
    let table = String(decoding: FileHandle(forReadingAtPath: "/proc/self/mounts")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    let mounts = table.split(separator: "\n")
        .map { $0.split(separator: " ") }.filter { $0.count > 2 }
    let holding = mounts.filter { path == $0[1] || path.hasPrefix($0[1] == "/" ? "/" : $0[1] + "/") }
    return holding.max { $0[1].count < $1[1].count }.map { String($0[2]) } ?? "unknown"
}
