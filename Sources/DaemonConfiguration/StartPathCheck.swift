import Glibc
import POSIXSupport

/// What `--check-config` finds in the socket and journal paths that would stop the start: a socket path too long for
/// a socket address or taken by a file that is no socket, a journal path taken by a file that is no folder, or a
/// folder that cannot exist (under a file, in /proc or /sys, on a read-only file system). A folder that is missing but
/// can be made passes: systemd makes /run/sealtrust-scand at start, and the journal makes its own.
enum StartPathCheck {
    static func socketProblem(_ path: String) -> String? {
        guard (try? UnixSocketAddress(path: path)) != nil else {
            return "the socket path \(path) is \(path.utf8.count) bytes, over the \(UnixSocketAddress.pathCapacity - 1) a socket address holds"
        }
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
            return "the socket path \(path) is a file that is not a socket"
        }
        return folderProblem(parent(of: path), what: "the socket's folder")
    }

    static func journalProblem(_ path: String) -> String? {
        folderProblem(path, what: "the journal")
    }

    /// Why `folder` cannot be, or nil when it is a folder or one can be made there.
    private static func folderProblem(_ folder: String, what: String) -> String? {
        var info = stat()
        var existing = folder
        while stat(existing, &info) != 0 {
            // ENOTDIR: a file on the way, which the next step up names.
            guard errno == ENOENT || errno == ENOTDIR, existing != "/" else {
                return "\(what) \(folder) cannot exist: \(existing): \(Errno.current)"
            }
            existing = parent(of: existing)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return "\(what) \(folder) cannot exist: \(existing) is not a folder"
        }
        guard existing != folder else { return nil }
        // Whether a folder can be made there (not in /proc or /sys, not on a read-only file system) is found by making
        // one, and removing it at once.
        var probe = Array("\(existing == "/" ? "" : existing)/.sealtrust-scand-check-XXXXXX".utf8CString)
        guard probe.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return "\(what) \(folder) cannot exist: no folder can be made in \(existing): \(Errno.current)"
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
