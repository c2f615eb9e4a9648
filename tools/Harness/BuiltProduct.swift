import Foundation

/// The path of an executable of this package, built beside the running test bundle or benchmark.
public func builtProduct(_ name: String) -> String {
    let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(name).path
}
