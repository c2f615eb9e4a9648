import Glibc

/// Thin wrappers over the socket calls the server makes; failures keep their errno.
enum UnixSocket {
    static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func address(_ path: String) throws(VerdictServerError) -> sockaddr_un {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathBytes, !bytes.isEmpty else { throw .pathTooLong(path: path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return address
    }

    static func makeStream(path: String) throws(VerdictServerError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "socket", path: path, errno: errno) }
        return descriptor
    }

    /// Whether a process accepts connections on `path`: the test between a stale file and a live daemon.
    static func isServed(_ path: String) throws(VerdictServerError) -> Bool {
        var address = try address(path)
        let descriptor = try makeStream(path: path)
        defer { close(descriptor) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return true }
        switch errno {
        case EAGAIN, EINPROGRESS: return true
        case ECONNREFUSED: return false
        case let code: throw .system(operation: "connect", path: path, errno: code)
        }
    }

    /// A listening socket at `path`, mode 0660, replacing a stale file and refusing a live one.
    static func listen(path: String, backlog: Int32 = 512) throws(VerdictServerError) -> Int32 {
        var address = try address(path)
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
            if try isServed(path) { throw .alreadyServed(path: path) }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .system(operation: "unlink", path: path, errno: errno)
            }
        }
        let descriptor = try makeStream(path: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .system(operation: "bind", path: path, errno: code)
        }
        guard chmod(path, 0o660) == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let code = errno
            close(descriptor)
            unlink(path)
            throw .system(operation: "listen", path: path, errno: code)
        }
        return descriptor
    }

    /// Non-blocking and closed on exec (Glibc's module has no accept4 or pipe2).
    static func setNonBlocking(_ descriptor: Int32) throws(VerdictServerError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
            fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
        else {
            throw .system(operation: "fcntl", path: "descriptor \(descriptor)", errno: errno)
        }
    }

    /// Sends without blocking and without SIGPIPE; returns the bytes taken, 0 when the kernel buffer is full, nil on a broken connection.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        while true {
            let result = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if result >= 0 { return result }
            switch errno {
            case EINTR: continue
            case EAGAIN: return 0
            default: return nil
            }
        }
    }
}
