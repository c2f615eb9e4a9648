import Glibc
import POSIXSupport

/// Tells when entries appear in a device's folder (`/dev/input/by-id`, `/dev/serial/by-id`, `/dev`), through
/// inotify. The folder itself may not exist while no such device is plugged in: the caller then re-checks once
/// a second.
struct PathWatch: ~Copyable {
    private let owned: OwnedDescriptor

    init() throws(SystemCallError) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { throw SystemCallError("inotify_init1") }
        owned = OwnedDescriptor(descriptor)
    }

    /// The descriptor to poll.
    var descriptor: Int32 { owned.rawValue }

    /// Watches the folder that holds `path`; false when it does not exist (yet).
    @discardableResult
    func watchFolder(of path: String) -> Bool {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
        return inotify_add_watch(descriptor, folder.isEmpty ? "/" : folder, mask) >= 0
    }

    /// Reads and forgets what inotify has queued; the caller looks at the path itself.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
