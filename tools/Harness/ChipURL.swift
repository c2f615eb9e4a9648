import Foundation

/// A chip URL as the catalogue chip `name` writes it at a tap with `counter` (demo/mint-chip-url.py, real AES-CMAC).
public func mintChipURL(_ name: String, counter: Int) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [repositoryRoot().appendingPathComponent("demo/mint-chip-url.py").path, name, String(counter)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw HarnessError("mint-chip-url.py \(name) \(counter) failed") }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
}
