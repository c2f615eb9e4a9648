import Foundation
import Glibc
import SystemdTestSupport
import TestSupport

/// The built `sealtrust-kiosk` on a free loopback port.
public final class KioskProcess: Sendable {
    public let process: SupervisedProcess
    /// http://127.0.0.1:PORT
    public let base: String
    public let port: Int

    /// `memoryDenyWriteExecute`: under the kernel's form of the unit's MemoryDenyWriteExecute=yes.
    public init(socketPath: String, language: String = "en", hold: Int = 8, memoryDenyWriteExecute: Bool = false) throws {
        process = try SupervisedProcess(executable: builtProduct("sealtrust-kiosk"),
                                        arguments: ["--socket", socketPath, "--listen", "127.0.0.1:0", "--lang", language,
                                                    "--hold", String(hold)],
                                        memoryDenyWriteExecute: memoryDenyWriteExecute)
        let deadline = ContinuousClock.now + .seconds(15)
        var found: String?
        while ContinuousClock.now < deadline {
            if let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("LISTENING ") }) {
                found = String(line.dropFirst("LISTENING ".count))
                break
            }
            var status: Int32 = 0
            if waitpid(process.pid, &status, WNOHANG) == process.pid {
                throw BrowserError("sealtrust-kiosk exited at start: \(process.standardError)")
            }
            usleep(10_000)
        }
        guard var url = found else { throw BrowserError("sealtrust-kiosk did not listen: \(process.standardError)") }
        if url.hasSuffix("/") { url.removeLast() }
        base = url
        port = Int(url.split(separator: ":").last ?? "") ?? 0
    }

    public var pid: pid_t { process.pid }

    /// Resident memory, in bytes.
    public func resident() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return -1 }
        return kilobytes * 1024
    }

    /// Alive, and not a zombie waiting to be reaped.
    public var isRunning: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z") && !stat[close...].hasPrefix(") X")
    }

    public func stop() {
        process.signal(SIGTERM)
        _ = process.waitForExit(timeout: .seconds(10))
    }
}
