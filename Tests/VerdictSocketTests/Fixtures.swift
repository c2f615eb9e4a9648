import Dispatch
import Foundation
import Glibc
import JSONCore
import ScanJournal
import Synchronization
import VerdictSocket

/// A daemon stand-in: a real journal and a real server, and a `verify` that
/// journals a scan and a verdict and publishes them to the requester, as the pipeline does.
final class FakeDaemon: VerdictServerDelegate {
    let directory: String
    let socketPath: String
    let journal: Journal
    let server: VerdictServer
    let verifications = Mutex<[(raw: String, requestID: JSON?, client: ClientID)]>([])
    let outcome = Mutex("authentic")

    init(configure: (inout VerdictServerConfiguration) -> Void = { _ in }, journalMaxBytes: Int = 268_435_456, segmentBytes: Int? = nil) throws {
        // Memory-backed when possible: these tests are about the socket, and fsync on disk costs milliseconds an event.
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/verdictsocket-test-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        socketPath = directory + "/scand.sock"
        journal = try Journal(path: directory + "/journal", maxBytes: journalMaxBytes, segmentBytes: segmentBytes)
        var configuration = VerdictServerConfiguration(path: socketPath)
        configure(&configuration)
        server = VerdictServer(configuration: configuration, journal: journal)
    }

    func start() throws {
        try server.start(delegate: self)
    }

    func tearDown() {
        server.stop()
        journal.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func helloFields() -> [(String, JSON)] {
        [("version", "0.1.0"), ("station", "dock-3"), ("sources", [Self.source]), ("last_seq", .int(Int64(journal.lastSeq)))]
    }

    func statusFields() -> [(String, JSON)] {
        [
            ("version", "0.1.0"), ("uptime_s", 42), ("sources", [Self.source]),
            ("counters", .object([("scans", 3), ("verdicts", .object([("authentic", 2)])), ("api_errors", 0)])),
            ("last_seq", .int(Int64(journal.lastSeq))),
        ]
    }

    static let source: JSON = .object([("id", "nfc:Virtual PCD 00 00"), ("medium", "nfc"), ("state", "ready")])

    func verify(raw: String, requestID: JSON?, from client: ClientID) {
        verifications.withLock { $0.append((raw, requestID, client)) }
        let outcome = outcome.withLock { $0 }
        DispatchQueue.global().async { [self] in
            let scanID = "scan-\(UInt32.random(in: 0...UInt32.max))"
            var common: [(String, JSON)] = [("scan_id", .string(scanID))]
            if let requestID { common.append(("request_id", requestID)) }
            guard let scan = try? journal.append(type: "scan", fields: common + [("source", "manual"), ("raw", .string(raw))]),
                let verdict = try? journal.append(type: "verdict", fields: common + [("outcome", .string(outcome))])
            else { return }
            server.publish(scan, requester: client)
            server.publish(verdict, requester: client)
        }
    }

    /// Journals and publishes one event, as the pipeline does.
    @discardableResult
    func emit(_ type: String, _ fields: [(String, JSON)] = []) throws -> JournaledEvent {
        let event = try journal.append(type: type, fields: fields)
        server.publish(event)
        return event
    }
}

struct TimedOut: Error {}

/// A plain blocking client socket with timeouts, as any local program would open.
final class TestClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if withUnixAddress(path, { connect(descriptor, $0, $1) }) != 0 {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) {
        sendBytes(Array(text.utf8))
    }

    func sendBytes(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { return }
            sent += result
        }
    }

    /// The next line; nil at end of stream; throws when nothing comes in time.
    func readLine(timeout: Double = 5) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeSubrange(0...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TimedOut() }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func readJSON(timeout: Double = 5) throws -> JSON {
        guard let line = try readLine(timeout: timeout) else { throw TimedOut() }
        return try JSON.parse(line)
    }

    /// Reads past the hello.
    @discardableResult
    func hello() throws -> JSON {
        let hello = try readJSON()
        guard hello["type"] == "hello" else { throw TimedOut() }
        return hello
    }

    /// Whether the server closed the connection (lines still in flight are skipped).
    func isClosedByServer(within timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            do {
                if try readLine(timeout: deadline.timeIntervalSinceNow) == nil { return true }
            } catch {
                return false
            }
        }
        return false
    }

    /// True when no line arrives within `quiet` seconds.
    func staysSilent(for quiet: Double = 0.3) -> Bool {
        (try? readLine(timeout: quiet)) == nil && buffer.isEmpty
    }
}

/// `path` as a sockaddr_un, for connect(2) and bind(2).
func withUnixAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

func openDescriptorCount() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

func waitUntil(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
