import Foundation
import Testing
import TestSupport

/// `sealtrust-scanctl verify … && open_gate`: the exit status is what a script trusts.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ScanctlVerifyTests {
    @Test func verifyExitsZeroOnlyForAnAuthenticItemWithNoTheftReport() throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }

        let authentic = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", try mintChipURL("authentic", counter: 31)])
        #expect(authentic.status == 0, "\(authentic.output)")
        #expect(authentic.output.contains("authentic"))

        let stolen = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", try mintChipURL("stolen", counter: 31)])
        #expect(stolen.status == 1, "a stolen item must not open the gate: \(stolen.output)")
        #expect(stolen.output.contains("authentic"), "the verdict itself is still printed: \(stolen.output)")
    }

    /// A printed code names the product, and a photocopy of it gives the same answer: `identified` has exit 4, so
    /// `verify "$code" && open_gate` stays shut for it.
    @Test func verifyExitsFourForAnIdentifiedPrintedCode() throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }

        let printed = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", "https://sealtrust.io/p/SN-00042"])
        #expect(printed.status == 4, "a photocopy must not open the gate: \(printed)")
        #expect(printed.output.contains("identified"), "\(printed)")
        let json = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", "--json", "https://sealtrust.io/p/SN-00042"])
        #expect(json.status == 4, "\(json)")
    }
}

/// What a run of a built product printed and how it ended.
struct ProductRun: CustomStringConvertible {
    let status: Int32
    let output: String
    let errors: String

    var description: String { "exit \(status), stdout \(output.debugDescription), stderr \(errors.debugDescription)" }
}

/// Runs a built product to its end, colour off.
/// `environment`: more variables for the product (its time zone, say).
func runProduct(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProductRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: builtProduct(product))
    process.arguments = arguments
    process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"].merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complained = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProductRun(status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
                      errors: String(decoding: complained, as: UTF8.self))
}
