import Glibc
@testable import KioskBridge
import Synchronization

/// The kiosk bridge's request head, as a client sends it, through the bridge's own libmicrohttpd server:
/// each input is written on a fresh TCP connection to it, which is then half-closed, and the answer read.
/// - the server answers with an HTTP status line, or closes, or waits, and keeps serving (no trap, no ASan report
///   in libmicrohttpd's callbacks, the routes, the Host check or the connection table);
/// - 200 only for a path that is exactly `/`, `/events`, `/metrics` or `/healthz` as libmicrohttpd keeps it (the
///   request target up to its first NUL, as it keeps a field's value; never `/%00`), and
///   only when the first `Host` field, if any, names the bridge (the listen address, `localhost`, kiosk.example);
/// - a resuming stream's seq is the `Last-Event-ID` field's value up to any NUL, decimal digits and nothing else
///   (leading zeros allowed).

/// The seqs that streams resumed after, for the input at hand.
final class Resumes: Sendable {
    let seqs = Mutex<[UInt64]>([])
}

/// The bridge as `main.swift` builds it, on a free loopback port, with resumes recorded instead of replayed.
final class Bridge: Sendable {
    let port: UInt16
    let hosts: AllowedHosts
    let server: HTTPServer
    let hub = EventHub()
    let resumed = Resumes()

    init() {
        let socket = try! ListeningSocket.bind(ListenAddress("127.0.0.1:0")!)
        port = socket.port
        hosts = AllowedHosts(listen: ListenAddress("127.0.0.1:\(socket.port)")!, extra: ["kiosk.example"])
        let routes = KioskRoutes(pages: KioskPages(holdSeconds: 8), hosts: hosts, hub: hub,
                                 station: StationState(version: "0.1.0"), desk: PassportDesk(), resume: { _ in })
        let resumed = resumed
        server = try! HTTPServer(socket: socket, answer: { request in
            let answer = routes.answer(request)
            if case .eventStream(let stream) = answer {
                if let seq = stream.resumeAfter { resumed.seqs.withLock { $0.append(seq) } }
                stream.end()
            }
            return answer
        })
    }
}

let bridge = Bridge()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    bridge.resumed.seqs.withLock { $0 = [] }
    defer { bridge.hub.sweep() }
    let answer = exchange(input)
    guard let status = statusCode(answer) else {
        check(answer.isEmpty || !answer.starts(with: Array("HTTP/".utf8)), "an answer without a status line: \(answer.prefix(80))")
        return 0
    }
    check((100...599).contains(status), "status \(status)")
    let head = requestHead(input)
    if status == 200 {
        check(["/", "/events", "/metrics", "/healthz"].contains(head.path), "200 for the path \(head.path.debugDescription)")
        if let host = head.host {
            check(bridge.hosts.permits(host), "200 for Host \(host.debugDescription)")
        }
    }
    for seq in bridge.resumed.seqs.withLock({ $0 }) {
        let digits = head.lastEventID.map { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } } ?? false
        check(digits && head.lastEventID.flatMap { UInt64($0) } == seq,
              "resumed after \(seq) for Last-Event-ID \(String(describing: head.lastEventID))")
    }
    return 0
}

/// Writes `input` to a new connection, half-closes it, and reads until the answer is whole or the server closes;
/// at most 300 ms (a head libmicrohttpd still waits on is closed by the bridge's deadline, not awaited here).
func exchange(_ input: [UInt8]) -> [UInt8] {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    check(descriptor >= 0, "socket")
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = bridge.port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    // libFuzzer's timeout alarm (SIGALRM) interrupts calls here: an interrupted connect goes on, and is waited for.
    if connected != 0 {
        check(errno == EINTR, "connect: errno \(errno)")
        var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while poll(&writable, 1, 1000) < 0 && errno == EINTR {}
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        check(writable.revents & Int16(POLLOUT) != 0 && failure == 0, "connect: errno \(failure)")
    }
    var offset = 0
    while offset < input.count {
        let written = input[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { break }   // the server may answer and close before reading it all
        offset += written
    }
    shutdown(descriptor, Int32(SHUT_WR))
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    let deadline = ContinuousClock.now + .milliseconds(300)
    while ContinuousClock.now < deadline {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, 20)
        if ready < 0 && errno == EINTR { continue }
        guard ready >= 0 else { break }
        if poller.revents == 0 { continue }
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        answer += chunk[..<count]
        if isComplete(answer) { break }
    }
    return answer
}

/// A whole answer: a head, and the body its Content-Length gives, or an event stream's head (the stream stays open).
func isComplete(_ answer: [UInt8]) -> Bool {
    guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else { return false }
    let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self).lowercased()
    if head.contains("text/event-stream") { return true }
    guard let field = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
          let length = Int(field.dropFirst("content-length:".count).filter { $0 != " " }) else { return false }
    return answer.count - end.upperBound >= length
}

func statusCode(_ answer: [UInt8]) -> Int? {
    let line = answer.prefix { $0 != 0x0D && $0 != 0x0A }
    let words = line.split(separator: 0x20)
    guard words.count >= 2, words[0].starts(with: Array("HTTP/1.".utf8)), words[1].count == 3 else { return nil }
    return Int(String(decoding: words[1], as: UTF8.self))
}

/// What the input's head says, read plainly: the request target's path (before `?`), the first `Host` and
/// `Last-Event-ID` fields (names in any case, values without surrounding blanks).
func requestHead(_ input: [UInt8]) -> (path: String, host: String?, lastEventID: String?) {
    let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false).map { $0.last == 0x0D ? $0.dropLast() : $0 }
    let target = lines.first?.split(separator: 0x20, omittingEmptySubsequences: false).dropFirst().first ?? []
    // libmicrohttpd keeps the target up to its first NUL, as it keeps a field's value: that is the path the bridge sees.
    let path = String(decoding: target.prefix { $0 != UInt8(ascii: "?") && $0 != 0 }, as: UTF8.self)
    var host: String?
    var lastEventID: String?
    for line in lines.dropFirst() {
        if line.isEmpty { break }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        // libmicrohttpd keeps a field's value up to its first NUL (strict mode too); that is what the bridge sees.
        let rawValue = line[(colon + 1)...].drop(while: isBlank).prefix { $0 != 0 }
        let value = String(decoding: rawValue.prefix(rawValue.count - rawValue.reversed().prefix(while: isBlank).count), as: UTF8.self)
        if name == "host", host == nil { host = value }
        if name == "last-event-id", lastEventID == nil { lastEventID = value }
    }
    return (path, host, lastEventID)
}
