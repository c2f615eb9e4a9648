import Glibc
import POSIXSupport

/// `--state-dir`: where the bridge keeps its position (and `watch --output`'s folder, made the same way). Without one, a restart would publish the whole journal again,
/// so the bridge never runs without it: a missing folder is made (mode 0700, only the bridge reads it), and one that
/// cannot be made or written refuses the start, named.
enum StateDirectory {
    /// Makes `path` when it is missing (its parent must exist), and checks it is a folder; `what` names it in an error.
    static func prepare(_ path: String, what: String = "state folder") throws(UsageError) {
        var info = stat()
        if stat(path, &info) != 0 {
            let failure = Errno.current
            guard failure.rawValue == ENOENT else { throw UsageError("cannot use the \(what) \(path): \(failure)") }
            guard mkdir(path, 0o700) == 0 else { throw UsageError("cannot make the \(what) \(path): \(Errno.current)") }
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw UsageError("the \(what) \(path) is not a folder") }
    }

    /// Writes the position once, so a folder the bridge cannot write refuses the start rather than every save.
    static func checkWritable(_ file: AcknowledgedSeqFile, holding seq: UInt64) throws(UsageError) {
        if let failure = file.save(seq) { throw UsageError("cannot keep the position in \(file.path): \(failure)") }
    }
}
