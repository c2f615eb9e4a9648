import Foundation
import TestSupport
import Testing

/// MemoryDenyWriteExecute=yes in the service holds only if the Swift runtime never needs writable and executable memory.
@Suite(.timeLimit(.minutes(1))) struct HardeningTests {
    @Test func swiftRuntimeAndFoundationRunWithWriteExecuteRefused() throws {
        let process = try ChildProcess(service: builtProduct("notify-probe"), arguments: ["--runtime"], memoryDenyWriteExecute: true)
        #expect(process.waitForExit(timeout: .seconds(30)) == 0, "\(process.standardOutput)\(process.standardError)")
        #expect(process.standardOutput == "runtime: ok\n")
    }

    /// systemd 252 enforces MemoryDenyWriteExecute= with seccomp, more strictly than PR_SET_MDWE: any mprotect()
    /// that asks for PROT_EXEC fails, even on code already executable. The trace shows the runtime never asks.
    @Test func swiftRuntimeNeverAsksForWritableOrLateExecutableMemory() throws {
        let scratch = try ScratchDirectory()
        let trace = scratch.path + "/trace"
        let run = try runCommand("/usr/bin/strace", ["-f", "-qq", "-e", "trace=mmap,mprotect,pkey_mprotect,shmat", "-o", trace,
                                                     builtProduct("notify-probe"), "--runtime"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("runtime: ok"))
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        #expect(calls.contains { $0.contains("mmap(") && $0.contains("PROT_EXEC") }, "the trace saw the libraries load")
        let refused = calls.filter { call in
            (call.contains("mmap(") && call.contains("PROT_WRITE") && call.contains("PROT_EXEC"))
                || (call.contains("mprotect(") && call.contains("PROT_EXEC"))
                || (call.contains("shmat(") && call.contains("SHM_EXEC"))
        }
        #expect(refused.isEmpty, "\(refused.joined(separator: "\n"))")
    }

    @Test func theRestrictionIsReallyInForce() throws {
        let attempt = """
            import mmap
            try:
                mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
                print("allowed")
            except PermissionError:
                print("refused")
            """
        let restricted = try ChildProcess(service: "/usr/bin/python3", arguments: ["-c", attempt], memoryDenyWriteExecute: true)
        #expect(restricted.waitForExit(timeout: .seconds(30)) == 0)
        #expect(restricted.standardOutput == "refused\n")
        let free = try ChildProcess(service: "/usr/bin/python3", arguments: ["-c", attempt])
        #expect(free.waitForExit(timeout: .seconds(30)) == 0)
        #expect(free.standardOutput == "allowed\n")
    }
}
