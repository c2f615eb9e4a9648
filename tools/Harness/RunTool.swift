import Foundation

/// Runs a tool to its end and returns what it printed (its output and errors together); throws with that text when it
/// fails.
@discardableResult
public func runTool(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
    }
    return text
}
