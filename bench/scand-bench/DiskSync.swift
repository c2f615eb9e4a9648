import Foundation
import Glibc
import Harness

/// What one durable journal line costs on the disk the daemon's journal is on: a verdict-sized append and its
/// fdatasync, which the daemon must finish before it publishes an event and the floor never pays.
final class DiskSync {
    private let directory: String
    private let descriptor: Int32
    private let line = [UInt8](repeating: UInt8(ascii: "x"), count: 299) + [0x0A]

    init() throws {
        directory = try makeScratchDirectory("scand-bench-disk")
        descriptor = open(directory + "/appends.jsonl", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw BenchFailure("open: \(String(cString: strerror(errno)))") }
    }

    func sample() throws -> Duration {
        let start = ContinuousClock.now
        guard write(descriptor, line, line.count) == line.count, fdatasync(descriptor) == 0
        else { throw BenchFailure("append and fdatasync: \(String(cString: strerror(errno)))") }
        return ContinuousClock.now - start
    }

    func stop() {
        close(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
