import Foundation

/// What a command printed (standard output and error together) and how it ended.
public struct CommandResult: Sendable {
    public let status: Int32
    public let output: String
}

/// Runs a command to its end, its stdin empty, in `directory`, with `environment` added to this process's own.
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

/// Runs a tool to its end and returns what it printed (its output and errors together); throws with that text when it
/// fails.
@discardableResult
public func runTool(_ executable: String, _ arguments: [String], in directory: String = repositoryRoot().path) throws -> String {
    let result = try runCommand(executable, arguments, in: directory)
    guard result.status == 0 else {
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) failed: \(result.output)")
    }
    return result.output
}
