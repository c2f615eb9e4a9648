import Foundation
import Glibc
import Harness
import Synchronization

/// 1,000 subscribers and one stalled one on a server in a child process: how long the last
/// subscriber waits for each event, and the server's resident memory idle and loaded.
struct FanOutBench {
    let subscribers: Int
    let events: Int
    let readerThreads = 4
    let intervalMilliseconds: Int
    let paddingBytes = 600

    func run() -> Int32 {
        let limit = raiseDescriptorLimit()
        guard limit > subscribers + 64 else {
            report("the descriptor limit (\(limit)) is too low for \(subscribers) subscribers")
            return 1
        }
        guard let directory = try? makeScratchDirectory("socket-bench", in: memoryBackedFolder) else {
            report("no scratch folder in \(memoryBackedFolder)")
            return 1
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/scand.sock"

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        server.arguments = ["serve", socketPath, directory + "/journal"]
        let commands = Pipe()
        let answers = Pipe()
        server.standardInput = commands
        server.standardOutput = answers
        do {
            try server.run()
        } catch {
            report("cannot start the server process: \(error)")
            return 1
        }
        let lines = LineReader(descriptor: answers.fileHandleForReading.fileDescriptor)
        func tell(_ command: String) {
            commands.fileHandleForWriting.write(Data((command + "\n").utf8))
        }
        defer {
            tell("quit")
            server.waitUntilExit()
        }
        guard lines.next() == "ready" else {
            report("the server process did not start")
            return 1
        }
        usleep(300_000)
        let idleRSS = residentKiB(of: server.processIdentifier)

        let progress = BenchProgress()
        let results = Mutex<[[UInt64: SubscriberShare.Arrival]]>([])
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<readerThreads {
            let share = subscribers / readerThreads + (thread < subscribers % readerThreads ? 1 : 0)
            Thread {
                let subscribers = SubscriberShare()
                if !subscribers.connect(count: share, path: socketPath) { progress.failures.add(1, ordering: .relaxed) }
                subscribers.read(reporting: progress)
                subscribers.closeAll()
                results.withLock { $0.append(subscribers.arrivals) }
                finished.signal()
            }.start()
        }
        let allGreeted = wait(seconds: 60) { progress.hellos.load(ordering: .relaxed) >= subscribers || progress.failures.load(ordering: .relaxed) > 0 }
        guard allGreeted, progress.failures.load(ordering: .relaxed) == 0, let stalled = connectedSocket(path: socketPath) else {
            report("could not connect \(subscribers) subscribers (\(progress.hellos.load(ordering: .relaxed)) greeted)")
            progress.stop.store(true, ordering: .relaxed)
            return 1
        }
        defer { close(stalled) }
        usleep(300_000)
        let loadedRSS = residentKiB(of: server.processIdentifier)

        tell("publish \(events) \(intervalMilliseconds) \(paddingBytes)")
        let publishReport = lines.next() ?? ""
        let expected = events * subscribers
        _ = wait(seconds: 30) { progress.received.load(ordering: .relaxed) >= expected }
        let burstRSS = residentKiB(of: server.processIdentifier)
        tell("clients")
        let clientsAfter = lines.next() ?? ""
        progress.stop.store(true, ordering: .relaxed)
        for _ in 0..<readerThreads { finished.wait() }

        var merged: [UInt64: SubscriberShare.Arrival] = [:]
        for share in results.withLock({ $0 }) {
            for (seq, arrival) in share {
                merged[seq, default: SubscriberShare.Arrival()].count += arrival.count
                merged[seq]!.lastNanoseconds = max(merged[seq]!.lastNanoseconds, arrival.lastNanoseconds)
                merged[seq]!.createdNanoseconds = arrival.createdNanoseconds
            }
        }
        let complete = merged.values.filter { $0.count == subscribers }
        let latencies = complete.map { Double($0.lastNanoseconds - $0.createdNanoseconds) / 1e6 }.sorted()
        let p50 = percentile(latencies, 50)
        let p99 = percentile(latencies, 99)
        let idleMiB = Double(idleRSS) / 1024
        let loadedMiB = Double(max(loadedRSS, burstRSS)) / 1024

        report("verdict socket fan-out: \(subscribers) subscribers + 1 stalled, \(events) events of ~\(paddingBytes + 200) bytes every \(intervalMilliseconds) ms, \(readerThreads) reader threads")
        report("server: \(publishReport) (journal on \(memoryBackedFolder); the fan-out clock starts before the append)")
        report("server after the burst: \(clientsAfter) (the stalled one is still connected while its queue is under its bound)")
        report("events reaching every subscriber: \(complete.count) of \(events); deliveries \(progress.received.load(ordering: .relaxed)) of \(expected)")
        report("creation to last subscriber: p50 \(formatted(p50)) ms, p99 \(formatted(p99)) ms, max \(formatted(latencies.last ?? .nan)) ms (goal p99 <= 20 ms): \(p99 <= 20 && complete.count == events ? "met" : "MISSED")")
        report("server resident memory: idle \(formatted(idleMiB)) MiB, with \(subscribers) subscribers \(formatted(Double(loadedRSS) / 1024)) MiB, after the burst \(formatted(Double(burstRSS) / 1024)) MiB (goal <= 64 MiB): \(loadedMiB <= 64 ? "met" : "MISSED")")
        return complete.count == events ? 0 : 1
    }

    /// Up to the hard limit: 1,000 subscribers need 1,000 descriptors on each side.
    private func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(clamping: limit.rlim_cur)
    }

    private func residentKiB(of process: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    private func wait(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    private func report(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// Whole lines from the server process's stdout.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeSubrange(0...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
