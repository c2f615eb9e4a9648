import Foundation

extension ChildProcess {
    /// Starts any executable the way systemd starts a service: NOTIFY_SOCKET, WATCHDOG_USEC/WATCHDOG_PID and
    /// LISTEN_FDS/LISTEN_PID set for that very process, stdout and stderr each in a file. A shell wrapper learns
    /// the pid before `exec`, since the parent cannot know it before the spawn.
    /// `environment` is added to this process's own, less what systemd would set.
    public convenience init(
        service executable: String,
        arguments: [String] = [],
        notify: NotifyListener? = nil,
        watchdog: Duration? = nil,
        watchdogPID: String? = nil,
        passing listening: ActivationSocket? = nil,
        environment extra: [String: String] = [:],
        memoryDenyWriteExecute: Bool = false
    ) throws {
        let systemdNames: Set = ["NOTIFY_SOCKET", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"]
        var environment = extra.merging(ProcessInfo.processInfo.environment.filter { !systemdNames.contains($0.key) }) { given, _ in given }
        // A service under test reaches no pcscd but the test process's own (PrivatePCSCD), never the machine's.
        if environment["PCSCLITE_CSOCK_NAME"] == nil {
            environment["PCSCLITE_CSOCK_NAME"] = "/nonexistent/sealtrust-test-no-pcscd.comm"
        }
        var exports: [String] = []
        if let notify { environment["NOTIFY_SOCKET"] = notify.address }
        if let watchdog {
            let components = watchdog.components
            environment["WATCHDOG_USEC"] = String(components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000)
            if let watchdogPID { environment["WATCHDOG_PID"] = watchdogPID } else { exports.append("WATCHDOG_PID=$$") }
        }
        if listening != nil {
            environment["LISTEN_FDS"] = "1"
            environment["LISTEN_FDNAMES"] = "scand.sock"
            exports.append("LISTEN_PID=$$")
        }
        let script = exports.map { "export \($0); " }.joined() + "exec \"$0\" \"$@\""
        let shell = ["/bin/sh", "-c", script, executable] + arguments
        let command = memoryDenyWriteExecute ? ["/usr/bin/python3", "-c", refuseWriteExecute] + shell : shell
        try self.init(command[0], Array(command.dropFirst()), environment: environment, output: .files,
                      passing: listening?.descriptor)
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
