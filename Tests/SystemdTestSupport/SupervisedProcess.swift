#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestSupport

/// Starts any executable the way systemd starts a service: NOTIFY_SOCKET, WATCHDOG_USEC/WATCHDOG_PID and LISTEN_FDS/LISTEN_PID
/// set for that very process. A shell wrapper learns the pid before `exec`, since the parent cannot know it before the spawn.
public final class SupervisedProcess: Sendable {
    public let pid: pid_t
    private let outputDirectory: String
    /// The exit status once reaped: after that the pid may belong to someone else.
    private let exitStatus = Mutex<Int32?>(nil)

    public init(
        executable: String,
        arguments: [String] = [],
        notify: NotifyListener? = nil,
        watchdog: Duration? = nil,
        watchdogPID: String? = nil,
        passing listening: ListeningSocket? = nil,
        environment extra: [String: String] = [:],
        memoryDenyWriteExecute: Bool = false
    ) throws {
        let directory = try makeScratchDirectory("sealtrust-systemd")
        var spawned = false
        defer { if !spawned { try? FileManager.default.removeItem(atPath: directory) } }
        var environment = extra.merging(ProcessInfo.processInfo.environment.filter { name, _ in
            !["NOTIFY_SOCKET", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"].contains(name)
        }) { given, _ in given }
        // A service under test reaches no pcscd but the test process's own (PrivatePCSCD), never the machine's.
        if environment["PCSCLITE_CSOCK_NAME"] == nil {
            environment["PCSCLITE_CSOCK_NAME"] = directory + "/no-pcscd.comm"
        }
        var exports: [String] = []
        if let notify { environment["NOTIFY_SOCKET"] = notify.address }
        if let watchdog {
            let components = watchdog.components
            environment["WATCHDOG_USEC"] = String(components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000)
            if let watchdogPID { environment["WATCHDOG_PID"] = watchdogPID } else { exports.append("WATCHDOG_PID=$$") }
        }
        var passedDescriptor: Int32 = -1
        if let listening {
            environment["LISTEN_FDS"] = "1"
            environment["LISTEN_FDNAMES"] = "scand.sock"
            exports.append("LISTEN_PID=$$")
            // dup2 onto the same number would keep close-on-exec set: start from a descriptor that is surely not 3.
            passedDescriptor = fcntl(listening.descriptor, F_DUPFD_CLOEXEC, 10)
            guard passedDescriptor >= 0 else { throw TestSystemError.last("fcntl F_DUPFD_CLOEXEC") }
        }
        defer { if passedDescriptor >= 0 { close(passedDescriptor) } }
        let script = exports.map { "export \($0); " }.joined() + "exec \"$0\" \"$@\""
        let shell = ["/bin/sh", "-c", script, executable] + arguments
        let argv = memoryDenyWriteExecute ? ["/usr/bin/python3", "-c", refuseWriteExecute] + shell : shell
        let envp = environment.map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if passedDescriptor >= 0 { posix_spawn_file_actions_adddup2(&actions, passedDescriptor, 3) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + "/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, directory + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var child: pid_t = 0
        let status = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envpPointers in
                posix_spawn(&child, argv[0], &actions, nil, argvPointers, envpPointers)
            }
        }
        guard status == 0 else { throw TestSystemError(operation: "posix_spawn \(executable)", errno: status) }
        spawned = true
        pid = child
        outputDirectory = directory
    }

    deinit {
        if exitStatus.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: outputDirectory)
    }

    /// What the process printed so far.
    public var standardOutput: String { (try? String(contentsOfFile: outputDirectory + "/stdout", encoding: .utf8)) ?? "" }
    public var standardError: String { (try? String(contentsOfFile: outputDirectory + "/stderr", encoding: .utf8)) ?? "" }

    public func signal(_ number: Int32) {
        if exitStatus.withLock({ $0 }) == nil { kill(pid, number) }
    }

    /// The exit status (or 128 + the signal that ended it); nil when it still runs after `timeout`, and then it is killed.
    public func waitForExit(timeout: Duration) -> Int32? {
        if let known = exitStatus.withLock({ $0 }) { return known }
        let status = reap(pid, within: timeout)
        exitStatus.withLock { $0 = status ?? 128 + SIGKILL }
        return status
    }
}

/// The kernel's form of MemoryDenyWriteExecute= (PR_SET_MDWE, Linux 6.3): no mapping may be writable and executable,
/// nor become executable later. It is inherited across exec, so the service runs under it from its first instruction.
public let refuseWriteExecute = """
    import ctypes, os, sys
    if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0:
        sys.exit("PR_SET_MDWE: " + os.strerror(ctypes.get_errno()))
    os.execv(sys.argv[1], sys.argv[1:])
    """

private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
