import Foundation
import Glibc

/// A raw HTTP/1.1 connection to the bridge, for what a library client would smooth over: exact bytes out,
/// the status and the stream as they come in. Every read has a deadline.
public final class HTTPProbe {
    public let descriptor: Int32
    private var buffer: [UInt8] = []

    /// `receiveBuffer`: a small kernel buffer makes a slow reader slow for real. `source`: the address to connect
    /// from (127.0.0.2 is loopback too, but not the station's own 127.0.0.1: a client from elsewhere).
    public init(port: Int, receiveBuffer: Int32? = nil, connectTimeout: Duration = .seconds(5), source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BrowserError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let failure = errno
                Glibc.close(descriptor)
                throw BrowserError("bind \(source): \(String(cString: strerror(failure)))")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // Connects without blocking: a server at its connection limit leaves new ones waiting in its backlog.
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var failure: Int32 = started == 0 ? 0 : errno
        if failure == EINPROGRESS {
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            if poll(&poller, 1, Int32(connectTimeout.components.seconds * 1000 + connectTimeout.components.attoseconds / 1_000_000_000_000_000)) == 1 {
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            } else {
                failure = ETIMEDOUT
            }
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        guard failure == 0 else {
            Glibc.close(descriptor)
            throw BrowserError("connect: \(String(cString: strerror(failure)))")
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Sends all of `bytes`; false when the server closed first.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// A GET with the given extra header lines, and `Host: 127.0.0.1` unless `host` says otherwise (nil: none).
    public func get(_ path: String, headers: [String] = [], host: String? = "127.0.0.1") -> Bool {
        send("GET \(path) HTTP/1.1\r\n" + (host.map { "Host: \($0)\r\n" } ?? "") + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// More bytes into the buffer; false at the end of the stream or the deadline.
    private func fill(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
        guard poll(&poller, 1, milliseconds) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    /// Reads up to the first `separator`, which is consumed; nil at the end or the deadline.
    private func read(upTo separator: [UInt8], deadline: ContinuousClock.Instant) -> [UInt8]? {
        while true {
            if let range = firstRange(of: separator) {
                let head = Array(buffer[..<range.lowerBound])
                buffer.removeSubrange(..<range.upperBound)
                return head
            }
            guard fill(until: deadline) else { return nil }
        }
    }

    private func firstRange(of separator: [UInt8]) -> Range<Int>? {
        guard buffer.count >= separator.count else { return nil }
        for start in 0...(buffer.count - separator.count) where buffer[start..<start + separator.count].elementsEqual(separator) {
            return start..<start + separator.count
        }
        return nil
    }

    /// The status code and headers (lower-case names) of the answer; nil when the server closed or said nothing.
    public func readHead(timeout: Duration = .seconds(10)) -> (status: Int, headers: [String: String])? {
        guard let head = read(upTo: Array("\r\n\r\n".utf8), deadline: ContinuousClock.now + timeout) else { return nil }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count >= 2, let status = Int(words[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    /// The body of a chunked answer, to its end.
    public func readChunkedBody(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        var body: [UInt8] = []
        while let sizeLine = read(upTo: [13, 10], deadline: deadline) {
            guard let size = Int(String(decoding: sizeLine, as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else { return nil }
            if size == 0 { return String(decoding: body, as: UTF8.self) }
            while buffer.count < size + 2 { guard fill(until: deadline) else { return nil } }
            body += buffer[..<size]
            buffer.removeSubrange(..<(size + 2))
        }
        return nil
    }

    /// A body of `Content-Length` bytes.
    public func readBody(length: Int, timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while buffer.count < length { guard fill(until: deadline) else { return nil } }
        defer { buffer.removeSubrange(..<length) }
        return String(decoding: buffer[..<length], as: UTF8.self)
    }

    /// The next Server-Sent Event of a chunked stream (comments skipped), as its fields.
    public func nextEvent(timeout: Duration = .seconds(10)) -> ServerSentEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = pendingEvent() { return event }
            guard let sizeLine = read(upTo: [13, 10], deadline: deadline),
                  let size = Int(String(decoding: sizeLine, as: UTF8.self), radix: 16), size > 0 else { return nil }
            while buffer.count < size + 2 { guard fill(until: deadline) else { return nil } }
            streamText += buffer[..<size]
            buffer.removeSubrange(..<(size + 2))
        }
    }

    private var streamText: [UInt8] = []

    private func pendingEvent() -> ServerSentEvent? {
        while let end = firstBlankLine() {
            let block = String(decoding: streamText[..<end.lowerBound], as: UTF8.self)
            streamText.removeSubrange(..<end.upperBound)
            var event = ServerSentEvent()
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
                switch parts.first {
                case "id": event.id = value
                case "event": event.name = value
                case "data": event.data += value
                case "retry": event.retry = value
                default: break
                }
            }
            if event.name != nil || event.id != nil || !event.data.isEmpty { return event }
        }
        return nil
    }

    private func firstBlankLine() -> Range<Int>? {
        guard streamText.count >= 2 else { return nil }
        for index in 0..<(streamText.count - 1) where streamText[index] == 10 && streamText[index + 1] == 10 {
            return index..<index + 2
        }
        return nil
    }

    /// True when the server has closed the connection (reads an end of stream within `timeout`).
    public func isClosed(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return true }
        }
        return false
    }
}

public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var name: String?
    public var data = ""
    public var retry: String?
}

/// One GET answered in full: status and body.
public func httpGet(port: Int, path: String, headers: [String] = [], host: String? = "127.0.0.1",
                    timeout: Duration = .seconds(10)) throws -> (status: Int, headers: [String: String], body: String) {
    let probe = try HTTPProbe(port: port)
    guard probe.get(path, headers: headers, host: host), let head = probe.readHead(timeout: timeout) else {
        throw BrowserError("no answer to GET \(path)")
    }
    let body: String?
    if head.headers["transfer-encoding"]?.lowercased() == "chunked" {
        body = probe.readChunkedBody()
    } else {
        body = probe.readBody(length: Int(head.headers["content-length"] ?? "0") ?? 0)
    }
    return (head.status, head.headers, body ?? "")
}
