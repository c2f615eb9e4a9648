import Foundation
import Glibc

/// Where a scratch folder goes when fsync on disk would cost more than the test is about: /dev/shm when writable.
public let memoryBackedFolder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"

/// The temporary folder: TMPDIR's (`make test` gives the run one of its own, removed at its end), else /tmp.
public let temporaryFolder: String = {
    guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
    return String(cString: value)
}()

/// A new, empty folder in `parent` for one test or run; `label` names its owner among leftovers.
public func makeScratchDirectory(_ label: String = "sealtrust-test", in parent: String = temporaryFolder) throws -> String {
    var template = Array("\(parent)/\(label)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp: \(String(cString: strerror(errno)))") }
    return String(cString: made)
}

/// A scratch folder that is removed, with everything in it, when this value goes.
public final class ScratchDirectory: Sendable {
    public let path: String

    public init(_ label: String = "sealtrust-test", in parent: String = temporaryFolder) throws {
        path = try makeScratchDirectory(label, in: parent)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
