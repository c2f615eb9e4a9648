import Foundation
import Glibc
import TestSupport

/// `sealtrust-mqtt watch --output DIR`, the reference consumer: each station's events in order in DIR/<station>.jsonl.
public final class WatchProcess: Sendable {
    private let process: ChildProcess
    public let outputDirectory: String

    public init(broker: MosquittoBroker) throws {
        outputDirectory = try makeScratchDirectory("watch-output")
        process = try ChildProcess(service: builtProduct("sealtrust-mqtt"), arguments: [
            "watch", "--url", broker.url, "--credentials", broker.credentialsFile, "--output", outputDirectory,
        ])
    }

    public var log: String { process.standardError }

    /// The most it held resident so far, in bytes, from /proc (VmHWM).
    public var peakResidentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return -1 }
        return kilobytes * 1024
    }
    public var printed: String { process.standardOutput }

    /// SIGTERM; the exit status.
    @discardableResult
    public func stop() -> Int32? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: .seconds(10))
    }

    /// The lines of `station`'s file so far, split as bytes (a file of 96 MB is read in well under a second).
    public func lines(of station: String) -> [String] {
        fileLines(of: station).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The seqs of `station`'s file, in file order (a `gone` line gives none).
    public func seqs(of station: String) -> [UInt64] {
        fileLines(of: station).compactMap(Self.seq)
    }

    /// The last seq of `station`'s file (what `seqs(of:).last` gives), read from the file's end: a poll of a file that
    /// holds megabytes reads only its last lines.
    public func lastSeq(of station: String) -> UInt64? {
        let descriptor = open(path(of: station), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var length = min(size, 65_536)
        while length > 0 {
            var tail = [UInt8](repeating: 0, count: length)
            guard tail.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, length, off_t(size - length)) }) == length else { return nil }
            // The first piece may be a line cut by the window, unless the window starts the file.
            let pieces = tail.split(separator: 0x0A, omittingEmptySubsequences: false)
            let whole = length == size ? pieces[...] : pieces.dropFirst()
            if let seq = whole.reversed().lazy.compactMap(Self.seq).first { return seq }
            if length == size { return nil }
            length = min(size, length * 4)
        }
        return nil
    }

    /// Waits until `station`'s file holds seqs 1 through `last`.
    public func waitForEvents(of station: String, through last: UInt64, timeout: Duration) throws {
        try waitUntil("watch: station \(station) has \(seqs(of: station).count) of \(last) events; its log: \(log.suffix(2_000))", timeout: timeout) {
            lastSeq(of: station) == last
        }
    }

    private func path(of station: String) -> String { outputDirectory + "/\(station).jsonl" }

    /// The file's non-empty lines, found with memchr: a byte-by-byte split of 96 MB takes seconds in a debug build.
    private func fileLines(of station: String) -> [ArraySlice<UInt8>] {
        guard let data = FileManager.default.contents(atPath: path(of: station)) else { return [] }
        let bytes = [UInt8](data)
        let ends: [Int] = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [Int] in
            guard let base = buffer.baseAddress else { return [] }
            var ends: [Int] = []
            var start = 0
            while start < buffer.count, let newline = memchr(base + start, 0x0A, buffer.count - start) {
                let end = UnsafeRawPointer(newline) - base
                ends.append(end)
                start = end + 1
            }
            return ends
        }
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for end in ends + [bytes.count] {
            if end > start { lines.append(bytes[start..<end]) }
            start = end + 1
        }
        return lines
    }

    /// The number after the line's first `"seq":`.
    private static func seq(in line: ArraySlice<UInt8>) -> UInt64? {
        let key = Array(#""seq":"#.utf8)
        guard line.count >= key.count else { return nil }
        var start = line.startIndex
        while start <= line.endIndex - key.count {
            if line[start] == key[0], line[start..<start + key.count].elementsEqual(key) {
                let digits = line[(start + key.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
                return digits.isEmpty ? nil : UInt64(String(decoding: digits, as: UTF8.self))
            }
            start += 1
        }
        return nil
    }
}
