import Foundation
import Glibc
import TestSupport

/// The built `sealtrust-scand` with no reader, no camera and, unless given one, no API: `verify` of a foreign code
/// makes a `scan` and a `verdict` without any network call, so tests make events as fast as it journals.
public final class StationDaemon: Sendable {
    public let daemon: ScanDaemon
    public let station: String
    /// Made by this instance, so removed with it (its journal may hold 100,000 events in /dev/shm).
    private let ownsDirectory: Bool

    /// `api`: the sandbox that answers chip URLs.
    public init(station: String = "dock-7", directory: String? = nil, api: SandboxAPI? = nil, extra: [String] = []) throws {
        ownsDirectory = directory == nil
        self.station = station
        daemon = try ScanDaemon(api: api, station: station, logLevel: "warning", extra: extra,
                                directory: directory ?? makeScratchDirectory("station", in: memoryBackedFolder))
        try daemon.waitUntilListening()
    }

    /// A restart in the same folder outlives this instance's removal of it: keep the first one alive to the end.
    deinit {
        daemon.kill()
        if ownsDirectory { daemon.removeDirectory() }
    }

    public var directory: String { daemon.directory }
    public var socketPath: String { daemon.socketPath }
    public var pid: pid_t { daemon.pid }
    public var standardError: String { daemon.process.standardError }
    public var hasExited: Bool { daemon.process.hasExited }

    /// Stops with SIGTERM, as systemd would; the journal stays for a restart in the same folder.
    @discardableResult
    public func stop() -> Int32? {
        daemon.terminate()
    }

    /// Scans `count` foreign codes through `verify` on one connection: `2 × count` journaled events.
    /// Returns once the daemon answered the last verdict.
    public func scanForeignCodes(_ count: Int, tag: String = "burst", timeout: Duration = .seconds(120)) throws {
        let client = try LineClient(path: socketPath)
        _ = try client.readLine(timeout: .seconds(5))
        try client.send(#"{"cmd":"watch","events":[]}"#)
        var batch = ""
        for index in 0..<count {
            batch += #"{"cmd":"verify","id":"\#(tag)-\#(index)","raw":"FOREIGN-\#(tag)-\#(index)"}"# + "\n"
            if batch.utf8.count > 32_768 || index == count - 1 {
                try client.send(String(batch.dropLast()))
                batch = ""
            }
        }
        let deadline = ContinuousClock.now + timeout
        var verdicts = 0
        while verdicts < count {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let line = try client.readLine(timeout: remaining) else {
                throw HarnessError("only \(verdicts) of \(count) verdicts within \(timeout)")
            }
            if line.hasPrefix(#"{"type":"verdict""#) { verdicts += 1 }
        }
    }

    /// The newest seq the daemon journaled, from a fresh `hello`.
    public func lastSeq() throws -> UInt64 {
        let client = try LineClient(path: socketPath)
        guard let hello = try client.readLine(timeout: .seconds(5)),
              let range = hello.range(of: #""last_seq":"#),
              let value = UInt64(hello[range.upperBound...].prefix { $0.isNumber })
        else { throw HarnessError("no hello with last_seq") }
        return value
    }
}
