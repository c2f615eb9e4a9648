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

    /// The lines of `station`'s file so far.
    public func lines(of station: String) -> [String] {
        let text = (try? String(contentsOfFile: outputDirectory + "/\(station).jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The seqs of `station`'s file, in file order (a `gone` line gives none).
    public func seqs(of station: String) -> [UInt64] {
        lines(of: station).compactMap { line in
            guard let range = line.range(of: #""seq":"#) else { return nil }
            return UInt64(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Waits until `station`'s file holds seqs 1 through `last`.
    public func waitForEvents(of station: String, through last: UInt64, timeout: Duration) throws {
        try waitUntil("watch: station \(station) has \(seqs(of: station).count) of \(last) events; its log: \(log.suffix(2_000))", timeout: timeout) {
            seqs(of: station).last == last
        }
    }
}
