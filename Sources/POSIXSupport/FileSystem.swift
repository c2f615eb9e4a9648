import Glibc

/// Thin calls on paths; each failure is the errno it left, and no policy (what an existing name means) lives here.
public enum FileSystem {
    /// Whether `path` names anything the caller can see (access F_OK; a dangling link does not count).
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Gives `path` the name `newPath`, replacing what had it (rename).
    public static func rename(_ path: String, to newPath: String) throws(Errno) {
        guard Glibc.rename(path, newPath) == 0 else { throw .current }
    }

    /// Removes the name `path` (unlink): a file open elsewhere lives on until closed.
    public static func remove(_ path: String) throws(Errno) {
        guard unlink(path) == 0 else { throw .current }
    }

    /// Makes the directory `path` with `mode` (before the umask); EEXIST when the name is taken.
    public static func makeDirectory(_ path: String, mode: mode_t) throws(Errno) {
        guard mkdir(path, mode) == 0 else { throw .current }
    }
}
