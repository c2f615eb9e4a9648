import Foundation
import Glibc
import Harness

/// The built `sealtrust-kiosk` on a free loopback port.
public final class KioskProcess: Sendable {
    public let process: ChildProcess
    /// http://127.0.0.1:PORT
    public let base: String
    public let port: Int

    /// `language`: `--lang`, nil to follow the daemon's; `launcher`: a program that runs the bridge in its turn (a
    /// test runs it under PR_SET_MDWE this way); `arguments`: more options for the bridge.
    /// `port`: 0 for a free one.
    public init(socketPath: String, language: String? = "en", hold: Int = 8, launcher: [String] = [], arguments: [String] = [],
                port requested: Int = 0) throws {
        let command = launcher + [builtProduct("sealtrust-kiosk"), "--socket", socketPath, "--listen", "127.0.0.1:\(requested)",
                                  "--hold", String(hold)] + (language.map { ["--lang", $0] } ?? []) + arguments
        process = try ChildProcess(command[0], Array(command.dropFirst()))
        let line = try process.waitForLineBlocking(timeout: .seconds(15)) { $0.hasPrefix("LISTENING ") }
        var url = String(line.dropFirst("LISTENING ".count))
        if url.hasSuffix("/") { url.removeLast() }
        base = url
        port = Int(url.split(separator: ":").last ?? "") ?? 0
    }

    public var pid: pid_t { process.pid }

    /// Resident memory, in bytes.
    public func resident() -> Int { status("VmRSS:") }

    /// The most resident memory it ever had, in bytes.
    public func peakResident() -> Int { status("VmHWM:") }

    private func status(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
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

    /// SIGTERM, as systemd stops it; its exit status.
    @discardableResult
    public func stop() -> Int32? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: .seconds(10))
    }
}
