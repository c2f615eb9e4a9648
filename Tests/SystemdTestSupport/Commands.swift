import Foundation
import TestSupport

/// What a command printed (standard output and error together) and how it ended.
public struct CommandResult: Sendable {
    public let status: Int32
    public let output: String
}

/// Runs a command to completion in `directory`, with `environment` added to the test's own.
public func runCommand(_ executable: String, _ arguments: [String], in directory: String = repositoryRoot().path,
                       environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
}
