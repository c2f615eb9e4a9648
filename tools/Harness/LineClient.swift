import Glibc

/// A client of a line protocol over a Unix stream socket (the daemon's protocol 1): blocking, with a deadline
/// on every read, as a test or benchmark needs it.
public final class LineClient {
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    public private(set) var isClosed = false

    public init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            throw HarnessError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw HarnessError("connect \(path): \(reason)")
        }
    }

    deinit { close() }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Sends `text`, with a newline added when it has none.
    public func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// The next line without its `\n`; nil at the deadline; throws at end of stream.
    public func readLine(timeout: Duration = .seconds(10)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            if poll(&poller, 1, Int32(min(milliseconds, 60_000))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw HarnessError("the peer closed the connection") }
            buffer += chunk[..<count]
        }
    }

    /// True when the peer closed this connection within `timeout` (whatever it sent first).
    public func isDisconnected(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            do {
                _ = try readLine(timeout: deadline - ContinuousClock.now)
            } catch {
                return true
            }
        }
        return false
    }
}
