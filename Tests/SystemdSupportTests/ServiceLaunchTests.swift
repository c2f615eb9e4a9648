import Foundation
import TestSupport
import Testing

/// A service started by the harness sees the variables a test gives it, as a unit's Environment= sets them,
/// without losing the ones it inherits: the daemon's journald and credentials tests depend on both.
@Suite(.timeLimit(.minutes(1))) struct ServiceLaunchTests {
    @Test func givenVariablesReachTheProcessOnTopOfTheInheritedOnes() throws {
        let inheritedPath = try #require(ProcessInfo.processInfo.environment["PATH"])
        let process = try ChildProcess(
            service: "/bin/sh", arguments: ["-c", #"printf '%s|%s|%s\n' "$SCAND_TEST_GREETING" "$HOME" "$PATH""#],
            environment: ["SCAND_TEST_GREETING": "hello service", "HOME": "/var/lib/sealtrust-scand"]
        )
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(process.standardOutput == "hello service|/var/lib/sealtrust-scand|\(inheritedPath)\n")
    }
}
