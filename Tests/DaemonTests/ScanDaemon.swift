import Foundation
import Glibc
import JSONCore
import ScanJournal
import SystemdTestSupport
import TestSupport

/// The built `sealtrust-scand`, run as a service would run it, with its socket and journal in a scratch folder.
final class ScanDaemon {
    let directory: String
    let socketPath: String
    let journalPath: String
    let process: SupervisedProcess

    /// `directory` reuses a former run's folder (its journal), as a restart would. With `config`, the socket and the
    /// station are that file's (which a reload may change), not flags.
    init(api: SandboxAPI?, nfc: String = "none", camera: String = "none", extra: [String] = [], directory: String? = nil,
         notify: NotifyListener? = nil, watchdog: Duration? = nil, passing listening: ListeningSocket? = nil,
         environment: [String: String] = [:], socketPath: String? = nil, config: String? = nil, launcher: [String] = []) throws {
        self.directory = try directory ?? makeScratchDirectory()
        self.socketPath = socketPath ?? self.directory + "/scand.sock"
        journalPath = self.directory + "/journal"
        var arguments = ["--journal", journalPath, "--nfc", nfc, "--camera", camera, "--api-timeout", "5", "--log-level", "debug"]
        arguments += config.map { ["--config", $0] } ?? ["--socket", self.socketPath, "--station", "test-station"]
        if let api { arguments += ["--api-base", api.baseURL.absoluteString] }
        if nfc != "none" {
            _ = try PrivatePCSCD.shared()  // sets PCSCLITE_CSOCK_NAME, which the daemon inherits
        }
        // `launcher` (e.g. `unshare --mount …`) execs the daemon last, so the pid stays the daemon's.
        let command = launcher + [builtProduct("sealtrust-scand")] + arguments + extra
        process = try SupervisedProcess(executable: command[0], arguments: Array(command.dropFirst()),
                                        notify: notify, watchdog: watchdog, passing: listening, environment: environment)
    }

    var pid: pid_t { process.pid }

    /// Waits until a client can connect; throws with the daemon's stderr when it exits first.
    @discardableResult
    func waitUntilListening(timeout: Duration = .seconds(20)) throws -> ScanDaemon {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let client = try? LineClient(path: socketPath) {
                client.close()
                return self
            }
            var status: Int32 = 0
            if waitpid(process.pid, &status, WNOHANG) == process.pid {
                throw HarnessError("the daemon exited at start: \(process.standardError)")
            }
            usleep(10_000)
        }
        throw HarnessError("the daemon did not listen within \(timeout): \(process.standardError)")
    }

    /// A connected client that has read its `hello`.
    func connect() throws -> (client: LineClient, hello: JSON) {
        let client = try LineClient(path: socketPath)
        guard let hello = try client.readJSON(), hello["type"]?.string == "hello" else {
            throw HarnessError("no hello from the daemon")
        }
        return (client, hello)
    }

    /// The daemon's open sockets (its clients among them). The runtime's own descriptors (libdispatch's epoll and
    /// eventfd, created at the first timer, which a loaded machine may run late) are not counted.
    func openSocketCount() -> Int {
        openDescriptorTargets().filter { $0.contains("=socket:") }.count
    }

    /// What each open descriptor is (`socket:[…]`, `pipe:[…]`, a path), sorted: said when a count is off.
    func openDescriptorTargets() -> [String] {
        let directory = "/proc/\(process.pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name)).map { "\(name)=\($0)" }
        }.sorted()
    }

    func resident() -> Int { statusBytes("VmRSS:") }

    /// The most resident memory the daemon has had (VmHWM), in bytes.
    func peakResident() -> Int { statusBytes("VmHWM:") }

    private func statusBytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return -1 }
        return kilobytes * 1024
    }

    func terminate(timeout: Duration = .seconds(15)) -> Int32? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: timeout)
    }

    func kill() {
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: .seconds(5))
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
