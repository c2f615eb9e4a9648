import Foundation

/// The machine's own pcscd, as its pid file names it: the tests only look at it, to prove they left it alone.
public struct SystemPCSCD: Equatable, Sendable, CustomStringConvertible {
    public let pid: Int32
    /// The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), so a reused pid differs.
    public let startTime: UInt64

    /// The running (not zombie) pcscd that /run/pcscd/pcscd.pid names; nil when none runs.
    public static func current() -> SystemPCSCD? {
        guard let text = try? String(contentsOfFile: "/run/pcscd/pcscd.pid", encoding: .utf8),
              let pid = Int32(text.filter(\.isWholeNumber)),  // pcscd ends the file with a newline and a NUL
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
              stat[stat.index(after: open) ..< close] == "pcscd"
        else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        // fields[0] is field 3 (the state); the start time is field 22.
        guard fields.count > 19, fields[0] != "Z", let startTime = UInt64(fields[19]) else { return nil }
        return SystemPCSCD(pid: pid, startTime: startTime)
    }

    public var description: String { "pcscd pid \(pid) started at tick \(startTime)" }
}
