import Foundation

/// The package root, so tests and benchmarks find `tools/` and `scripts/` whatever directory they run from.
public func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Harness
        .deletingLastPathComponent()   // tools
        .deletingLastPathComponent()
}
