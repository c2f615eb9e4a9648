import Foundation
import Glibc

/// The built `sealtrust-scand`, run as a service would run it, with its socket and journal in a scratch folder:
/// the one way tests, the bridges' harnesses and the benchmarks start the daemon.
public final class ScanDaemon: Sendable {
    public let directory: String
    public let socketPath: String
    public let journalPath: String
    public let process: ChildProcess

    /// `directory` reuses a former run's folder (its journal), as a restart would. With `config`, the socket and the
    /// station are that file's (which a reload may change), not flags. `launcher` (e.g. `unshare --mount …`) execs
    /// the daemon last, so the pid stays the daemon's.
    public init(api: SandboxAPI?, nfc: String = "none", camera: String = "none", station: String = "test-station",
                logLevel: String = "debug", extra: [String] = [], directory: String? = nil, notify: NotifyListener? = nil,
                watchdog: Duration? = nil, passing listening: ActivationSocket? = nil, environment: [String: String] = [:],
                socketPath: String? = nil, config: String? = nil, launcher: [String] = []) throws {
        self.directory = try directory ?? makeScratchDirectory()
        self.socketPath = socketPath ?? self.directory + "/scand.sock"
        journalPath = self.directory + "/journal"
        var arguments = ["--journal", journalPath, "--nfc", nfc, "--camera", camera, "--api-timeout", "5", "--log-level", logLevel]
        arguments += config.map { ["--config", $0] } ?? ["--socket", self.socketPath, "--station", station]
        if let api { arguments += ["--api-base", api.baseURL.absoluteString] }
        if nfc != "none" {
            _ = try PrivatePCSCD.shared()  // sets PCSCLITE_CSOCK_NAME, which the daemon inherits
        }
        let command = launcher + [builtProduct("sealtrust-scand")] + arguments + extra
        process = try ChildProcess(service: command[0], arguments: Array(command.dropFirst()), notify: notify,
                                   watchdog: watchdog, passing: listening, environment: environment)
    }

    public var pid: pid_t { process.pid }

    /// Waits until a client can connect; throws with the daemon's stderr when it exits first.
    @discardableResult
    public func waitUntilListening(timeout: Duration = .seconds(20)) throws -> ScanDaemon {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let client = try? LineClient(path: socketPath) {
                client.close()
                return self
            }
            if process.hasExited {
                throw HarnessError("the daemon exited at start: \(process.standardError)")
            }
            usleep(10_000)
        }
        throw HarnessError("the daemon did not listen within \(timeout): \(process.standardError)")
    }

    /// Waits until the daemon's log holds `text` `count` times (a reload's outcome, say); throws with the log if not.
    public func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        func seen() -> Bool { process.standardError.components(separatedBy: text).count - 1 >= count }
        while !seen(), ContinuousClock.now < deadline { usleep(20_000) }
        guard seen() else { throw HarnessError("no '\(text)' in the log: \(process.standardError)") }
    }

    /// The daemon's open sockets (its clients among them), as `fd=socket:[inode]`. The runtime's own descriptors
    /// (libdispatch's epoll and eventfd, created at the first timer, which a loaded machine may run late) are not
    /// sockets.
    public func openSocketTargets() -> [String] {
        openDescriptorTargets().filter { $0.contains("=socket:") }
    }

    /// What each open descriptor is (`socket:[…]`, `pipe:[…]`, a path), sorted: said when a count is off.
    public func openDescriptorTargets() -> [String] {
        let directory = "/proc/\(process.pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name)).map { "\(name)=\($0)" }
        }.sorted()
    }

    public func resident() -> Int { statusBytes("VmRSS:") }

    /// The most resident memory the daemon has had (VmHWM), in bytes.
    public func peakResident() -> Int { statusBytes("VmHWM:") }

    private func statusBytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return -1 }
        return kilobytes * 1024
    }

    /// Stops with SIGTERM, as systemd would; the journal stays for a restart in the same folder. The exit status,
    /// nil when it had to be killed after `timeout`.
    @discardableResult
    public func terminate(timeout: Duration = .seconds(15)) -> Int32? {
        process.stop(grace: timeout)
    }

    public func kill() {
        process.signal(SIGKILL)
        process.waitForExit(timeout: .seconds(5))
    }

    public func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
