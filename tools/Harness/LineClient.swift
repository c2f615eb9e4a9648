import Glibc
import POSIXSupport

/// A client of a line protocol over a Unix stream socket (the daemon's protocol 1): blocking, with a deadline
/// on every read, as a test or benchmark needs it.
public final class LineClient {
    /// What one wait for a line brought.
    public enum Reception: Equatable, Sendable {
        /// A whole line, without its `\n`.
        case line(String)
        /// The peer closed the connection (a partial line it left is kept in `hasPartialLine`).
        case end
        case timedOut
    }

    public let descriptor: Int32
    private var buffer: [UInt8] = []
    public private(set) var isClosed = false

    public init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        do {
            let address = try UnixSocketAddress(path: path)
            guard address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else { throw Errno.current }
        } catch {
            Glibc.close(descriptor)
            throw HarnessError("connect \(path): \(error)")
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
        try sendBytes(bytes)
    }

    /// Sends `bytes` as they are: no newline is added.
    public func sendBytes(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Waits up to `timeout` for the next line.
    public func receive(timeout: Duration) -> Reception {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .timedOut }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            if poll(&poller, 1, Int32(min(milliseconds, 60_000))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { return .end }
            buffer += chunk[..<count]
        }
    }

    /// The next line without its `\n`; nil at the deadline; throws at end of stream.
    public func readLine(timeout: Duration = .seconds(10)) throws -> String? {
        switch receive(timeout: timeout) {
        case .line(let line): line
        case .timedOut: nil
        case .end: throw HarnessError("the peer closed the connection")
        }
    }

    /// Bytes received after the last whole line.
    public var hasPartialLine: Bool { !buffer.isEmpty }

    /// True when the peer closed this connection within `timeout` (whatever it sent first).
    public func isDisconnected(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch receive(timeout: deadline - ContinuousClock.now) {
            case .line: continue
            case .end: return true
            case .timedOut: return false
            }
        }
    }
}
