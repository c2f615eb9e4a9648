import Foundation
import Glibc
import TestSupport

/// The built `sealtrust-mqtt`, started as systemd would (NOTIFY_SOCKET when a listener is given).
public final class BridgeProcess: Sendable {
    private let process: ChildProcess

    public init(arguments: [String], notify: NotifyListener? = nil, environment: [String: String] = [:]) throws {
        process = try ChildProcess(service: builtProduct("sealtrust-mqtt"), arguments: arguments, notify: notify, environment: environment)
    }

    /// The usual bridge of a test: the daemon's socket, the plain listener with the right password.
    public convenience init(daemon: StationDaemon, broker: MosquittoBroker, stateDirectory: String,
                            extra: [String] = [], notify: NotifyListener? = nil) throws {
        try self.init(arguments: ["--socket", daemon.socketPath, "--url", broker.url, "--credentials", broker.credentialsFile,
                                  "--state-dir", stateDirectory] + extra, notify: notify)
    }

    public var pid: pid_t { process.pid }
    public var log: String { process.standardError }

    public func kill9() {
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: .seconds(5))
    }

    /// The exit status once it ended by itself (or 128 + the signal that ended it); nil when it still runs after `timeout`.
    public func waitForExit(timeout: Duration) -> Int32? {
        process.waitForExit(timeout: timeout)
    }

    /// SIGTERM; the exit status.
    @discardableResult
    public func stop() -> Int32? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: .seconds(10))
    }

    /// User and system CPU time so far, from /proc.
    public var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
              let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 13,
              let user = Double(fields[11]), let system = Double(fields[12])
        else { return -1 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory in bytes, from /proc.
    public var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return -1 }
        return kilobytes * 1024
    }

    /// The acknowledged seq the bridge saved, or nil before it saved one.
    public static func savedSeq(in stateDirectory: String) -> UInt64? {
        (try? String(contentsOfFile: stateDirectory + "/acked-seq", encoding: .utf8)).flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
