import Foundation
import Glibc
import Synchronization

/// A tool run in the background with the default signal mask and dispositions, its output in a file.
/// (A child inherits the mask of the thread that spawns it, and the test runner's threads block
/// SIGTERM: mosquitto would then ignore the SIGTERM that makes it save its sessions.)
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let outputPath: String
    private let exitStatus = Mutex<Int32?>(nil)

    public init(_ executable: String, _ arguments: [String], outputPath: String) throws {
        self.outputPath = outputPath
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw BridgeHarnessError("spawn \(executable): \(String(cString: strerror(status)))") }
        pid = child
    }

    deinit {
        if exitStatus.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    public func signal(_ number: Int32) {
        if exitStatus.withLock({ $0 }) == nil { kill(pid, number) }
    }

    /// The exit status (128 + signal when one ended it); nil when it still runs after `timeout`.
    @discardableResult
    public func waitForExit(timeout: Duration) -> Int32? {
        if let known = exitStatus.withLock({ $0 }) { return known }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7f
                let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
                exitStatus.withLock { $0 = exit }
                return exit
            }
            usleep(10_000)
        }
        return nil
    }

    /// SIGTERM, then SIGKILL after `grace`.
    public func stop(grace: Duration = .seconds(10)) {
        signal(SIGTERM)
        if waitForExit(timeout: grace) == nil {
            signal(SIGKILL)
            waitForExit(timeout: .seconds(5))
        }
    }
}
