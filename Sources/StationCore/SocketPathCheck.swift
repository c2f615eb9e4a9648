import Glibc
import POSIXSupport

/// What `--check-config` finds in the socket path that would stop the start: a path too long for a socket address,
/// a file in its place that is no socket, or a folder that cannot exist (under a file, in /proc or /sys, on a read-only
/// file system). A folder that is missing but can be made passes: systemd makes /run/sealtrust-scand at start.
enum SocketPathCheck {
    static func problem(_ path: String) -> String? {
        guard (try? UnixSocketAddress(path: path)) != nil else {
            return "the socket path \(path) is \(path.utf8.count) bytes, over the \(UnixSocketAddress.pathCapacity - 1) a socket address holds"
        }
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
            return "the socket path \(path) is a file that is not a socket"
        }
        let folder = parent(of: path)
        var existing = folder
        while stat(existing, &info) != 0 {
            guard errno == ENOENT, existing != "/" else {
                return "the socket's folder \(folder) cannot exist: \(existing): \(Errno.current)"
            }
            existing = parent(of: existing)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return "the socket's folder \(folder) cannot exist: \(existing) is not a folder"
        }
        guard existing != folder else { return nil }
        // Whether a folder can be made there (not in /proc or /sys, not on a read-only file system) is found by making
        // one, and removing it at once.
        var probe = Array("\(existing == "/" ? "" : existing)/.sealtrust-scand-check-XXXXXX".utf8CString)
        guard probe.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return "the socket's folder \(folder) cannot exist: no folder can be made in \(existing): \(Errno.current)"
        }
        rmdir(probe)
        return nil
    }

    /// The folder `path` is in: `.` for a bare name, `/` for a name at the root.
    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
