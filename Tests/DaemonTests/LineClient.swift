import Foundation
import Glibc
import JSONCore
import ScanJournal

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A protocol-1 client over the daemon's Unix socket: blocking, with a deadline on every read.
final class LineClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var isClosed = false

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("socket path too long: \(path)") }
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

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    func send(_ value: JSON) throws { try send(value.encoded()) }

    /// The next line without its `\n`; nil at the deadline; throws at end of stream.
    func readLine(timeout: Duration = .seconds(10)) throws -> String? {
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
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            let ready = poll(&poller, 1, milliseconds)
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw HarnessError("the daemon closed the connection") }
            buffer += chunk[..<count]
        }
    }

    func readJSON(timeout: Duration = .seconds(10)) throws -> JSON? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        return try JSON.parse(line)
    }

    /// Reads until a message matches, keeping every message read on the way in `seen`.
    func next(timeout: Duration = .seconds(15), seen: inout [JSON], where matches: (JSON) -> Bool) throws -> JSON? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try readJSON(timeout: deadline - ContinuousClock.now) else { return nil }
            seen.append(message)
            if matches(message) { return message }
        }
        return nil
    }

    func next(timeout: Duration = .seconds(15), where matches: (JSON) -> Bool) throws -> JSON? {
        var seen: [JSON] = []
        return try next(timeout: timeout, seen: &seen, where: matches)
    }

    /// True when the daemon closed this connection within `timeout` (whatever it sent first).
    func isDisconnected(within timeout: Duration) -> Bool {
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

extension JSON {
    var string: String? { stringValue }
    var integer: Int64? { integerValue }
}
