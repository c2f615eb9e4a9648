import Foundation
import Glibc

/// The machine's pcscd, which these tests own: stopped and started again to prove the monitor recovers.
enum PCSCDaemon {
    /// A live (not zombie) process named pcscd.
    static func isRunning() -> Bool {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.contains { pid in
            guard pid.allSatisfy(\.isNumber),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return false }
            let name = stat[stat.index(after: open) ..< close]
            let state = stat[stat.index(close, offsetBy: 2)...].first
            return name == "pcscd" && state != "Z"
        }
    }

    static func kill() throws {
        let pkill = Process()
        pkill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        pkill.arguments = ["-x", "pcscd"]
        try pkill.run()
        pkill.waitUntilExit()
        try waitUntil(running: false)
    }

    /// Starts pcscd as `make services` does. Not through Foundation's Process: its children inherit a
    /// signal mask that blocks SIGTERM, and a pcscd that ignores `pkill` would outlive these tests.
    static func start() throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let path = "/usr/sbin/pcscd"
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, nil, &attributes, arguments, environ)
        guard spawned == 0 else { throw MonitorTestFailure("pcscd did not start: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)  // pcscd forks its daemon and returns at once
        try waitUntil(running: true)
    }

    static func ensureRunning() {
        if !isRunning() {
            try? start()
        }
    }

    private static func waitUntil(running: Bool) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while isRunning() != running {
            guard ContinuousClock.now < deadline else {
                throw MonitorTestFailure(running ? "pcscd did not start" : "pcscd did not exit after SIGTERM")
            }
            usleep(20_000)
        }
    }
}
