import Glibc
import POSIXSupport

/// The server's policy for its socket file: mode 0660, a stale file from a crashed run replaced, a live one refused.
enum SocketFile {
    /// Whether a process accepts connections on `address`: the test between a stale file and a live daemon.
    static func isServed(_ address: UnixSocketAddress, path: String) throws(VerdictServerError) -> Bool {
        let owned = OwnedDescriptor(try call("socket", path) { () throws(Errno) in try UnixSocket.make(.stream, nonBlocking: true) })
        let descriptor = owned.rawValue
        do {
            try UnixSocket.connect(descriptor, to: address)
            return true
        } catch {
            switch error.rawValue {
            case EAGAIN, EINPROGRESS: return true
            case ECONNREFUSED: return false
            default: throw .system(operation: "connect", path: path, errno: error)
            }
        }
    }

    /// A listening, non-blocking socket at `path`, made mode 0660 by its bind, replacing a stale file and refusing a live one.
    static func listen(path: String, backlog: Int32 = 512) throws(VerdictServerError) -> Int32 {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw .pathTooLong(path: path)
        }
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
            if try isServed(address, path: path) { throw .alreadyServed(path: path) }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .system(operation: "unlink", path: path, errno: .current)
            }
        }
        let owned = OwnedDescriptor(try call("socket", path) { () throws(Errno) in try UnixSocket.make(.stream, nonBlocking: true) })
        let descriptor = owned.rawValue
        try call("bind", path) { () throws(Errno) in try bindMode0660(descriptor, to: address) }
        do throws(VerdictServerError) {
            try call("listen", path) { () throws(Errno) in try UnixSocket.listen(descriptor, backlog: backlog) }
        } catch {
            unlink(path)
            throw error
        }
        return owned.release()
    }

    /// Binds with the file created 0660 by bind itself (0777 masked by the umask of that moment): never a wider mode
    /// for an instant, and no chmod by path that a file swapped in meanwhile (a symlink) could redirect.
    /// The umask is the process's: for the bind's instant, another thread's new file can only come out narrower.
    private static func bindMode0660(_ descriptor: Int32, to address: UnixSocketAddress) throws(Errno) {
        let previous = umask(0o117)
        defer { umask(previous) }
        try UnixSocket.bind(descriptor, to: address)
    }

    private static func call<Result>(_ operation: String, _ path: String, _ body: () throws(Errno) -> Result) throws(VerdictServerError) -> Result {
        do {
            return try body()
        } catch {
            throw .system(operation: operation, path: path, errno: error)
        }
    }
}
