import SystemdTestSupport
import Testing

/// MemoryDenyWriteExecute=yes in the service holds only if the Swift runtime never needs writable and executable memory.
@Suite struct HardeningTests {
    @Test func swiftRuntimeAndFoundationRunWithWriteExecuteRefused() throws {
        let process = try SupervisedProcess(executable: builtProduct("notify-probe"), arguments: ["--runtime"], memoryDenyWriteExecute: true)
        #expect(process.waitForExit(timeout: .seconds(30)) == 0, "\(process.standardOutput)\(process.standardError)")
        #expect(process.standardOutput == "runtime: ok\n")
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
        let restricted = try SupervisedProcess(executable: "/usr/bin/python3", arguments: ["-c", attempt], memoryDenyWriteExecute: true)
        #expect(restricted.waitForExit(timeout: .seconds(30)) == 0)
        #expect(restricted.standardOutput == "refused\n")
        let free = try SupervisedProcess(executable: "/usr/bin/python3", arguments: ["-c", attempt])
        #expect(free.waitForExit(timeout: .seconds(30)) == 0)
        #expect(free.standardOutput == "allowed\n")
    }
}
