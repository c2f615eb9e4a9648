import Foundation
import Glibc
import Synchronization

/// This process's own pcscd with vpcd's two virtual readers (`scripts/private-pcscd.sh`), beside the machine's
/// pcscd, which the tests, the demo and the benchmarks never stop, restart or reconfigure: on a station it
/// serves the production readers. Two test runs on one machine each have theirs, on their own ports.
public final class PrivatePCSCD: Sendable {
    /// The names pcscd gives vpcd's two readers.
    public static let readerNames = ["Virtual PCD 00 00", "Virtual PCD 00 01"]

    /// What libpcsclite (and so every PC/SC program) connects to, as PCSCLITE_CSOCK_NAME.
    public let socketPath: String
    /// vpcd's port for reader 0; reader 1 listens on the next one.
    public let firstPort: Int
    private let supervisor: ChildProcess
    private let running: Mutex<pid_t?>

    private static let instance = Mutex<Result<PrivatePCSCD, HarnessError>?>(nil)

    private init(supervisor: ChildProcess, ready: Ready) {
        self.supervisor = supervisor
        socketPath = ready.socket
        firstPort = ready.port
        running = Mutex(ready.pid)
    }

    /// The pcscd of this process, started at the first call; it ends with the process.
    ///
    /// Sets PCSCLITE_CSOCK_NAME in this process's environment, which every child inherits. libpcsclite reads
    /// it once, at its first call in a process: call this before anything in the process uses PC/SC.
    public static func shared() throws -> PrivatePCSCD {
        try instance.withLock { instance in
            if instance == nil {
                instance = Result { try start() }.mapError { $0 as? HarnessError ?? HarnessError("\($0)") }
            }
            return try instance!.get()
        }
    }

    /// The port of vpcd's reader 0 or 1, where a virtual tag connects.
    public func port(reader: Int) -> Int {
        firstPort + reader
    }

    /// The pid of the running pcscd; nil while stopped.
    public var pid: pid_t? { running.withLock { $0 } }

    /// Ends this pcscd (SIGTERM to its pid only) and returns once it has exited.
    public func stop() async throws {
        let mark = supervisor.lines.count
        try supervisor.send("stop")
        _ = try await supervisor.waitForLine(after: mark, timeout: .seconds(10)) { $0 == "STOPPED" }
        running.withLock { $0 = nil }
    }

    /// Starts pcscd again on the same socket and ports; returns once it serves both readers.
    public func start() async throws {
        let mark = supervisor.lines.count
        try supervisor.send("start")
        let line = try await supervisor.waitForLine(after: mark, timeout: .seconds(10)) {
            $0.hasPrefix("READY ") || $0.hasPrefix("FAILED ")
        }
        let ready = try Ready(line)
        running.withLock { $0 = ready.pid }
    }

    private static func start() throws -> PrivatePCSCD {
        let script = repositoryRoot().appendingPathComponent("scripts/private-pcscd.sh").path
        let supervisor = try ChildProcess("/bin/bash", [script])
        let line = try supervisor.waitForLineBlocking(timeout: .seconds(60)) { $0.hasPrefix("READY ") || $0.hasPrefix("FAILED ") }
        let ready = try Ready(line)
        setenv("PCSCLITE_CSOCK_NAME", ready.socket, 1)
        return PrivatePCSCD(supervisor: supervisor, ready: ready)
    }

    /// `READY pid=PID socket=PATH port=PORT`, the script's report that pcscd serves both readers.
    private struct Ready {
        let pid: pid_t
        let socket: String
        let port: Int

        init(_ line: String) throws {
            var fields: [String: String] = [:]
            for word in line.split(separator: " ").dropFirst() {
                let parts = word.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            guard line.hasPrefix("READY "), let pid = fields["pid"].flatMap({ pid_t($0) }), let socket = fields["socket"],
                  let port = fields["port"].flatMap({ Int($0) }) else {
                throw HarnessError("private pcscd: \(line)")
            }
            self.pid = pid
            self.socket = socket
            self.port = port
        }
    }
}
