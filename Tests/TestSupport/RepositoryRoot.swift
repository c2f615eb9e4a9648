import Foundation

/// The package root, so tests find `tools/` whatever directory `swift test` runs from.
public func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // TestSupport
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()
}
