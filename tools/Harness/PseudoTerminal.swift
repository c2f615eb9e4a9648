import Glibc

/// A real pseudo-terminal pair: the test writes at the master as a serial scanner would, the daemon opens the
/// slave (usually through a symbolic link standing for a `/dev/serial/by-id/` name).
public final class PseudoTerminal {
    public let master: Int32
    public let slavePath: String
    private let slave: Int32
    private var closed = false

    public init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw HarnessError("openpty: \(String(cString: strerror(errno)))") }
        // Not handed down to a daemon the test starts: it would keep the port open after `close()`.
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        self.master = master
        self.slave = slave
        var name = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/fd/\(slave)", &name, name.count - 1)
        slavePath = String(decoding: name.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes all of `bytes` at the master.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw HarnessError("write to the pty: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// True once the slave is in raw mode (no canonical lines, no echo), as the daemon sets it.
    public var slaveIsRaw: Bool {
        var settings = termios()
        guard tcgetattr(slave, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ICANON | ECHO) == 0
    }

    /// Closes both ends: the slave disappears, as an unplugged CDC-ACM port does.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(slave)
        Glibc.close(master)
    }

    deinit { close() }
}
