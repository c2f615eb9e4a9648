import Dispatch
import Foundation
import Glibc
import JSONCore
import ScanJournal
import StationWire
import Synchronization
import TestSupport
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
        directory = try makeScratchDirectory("verdictsocket-test", in: memoryBackedFolder)
        socketPath = directory + "/scand.sock"
        journal = try Journal(path: directory + "/journal", maxBytes: journalMaxBytes, segmentBytes: segmentBytes)
        var configuration = VerdictServerConfiguration(path: socketPath)
        configure(&configuration)
        server = VerdictServer(configuration: configuration)
    }

    func start() throws {
        try server.start(journal: journal, delegate: self)
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
            ("version", "0.1.0"), ("station", "gate-3"), ("uptime_s", 42), ("sources", [Self.scannedSource]),
            ("counters", .object([("scans", 3), ("verdicts", .object([("authentic", 2)])), ("api_errors", 1)])),
            ("last_api_error", .object([("at", "2026-12-01T12:00:00.000Z"), ("kind", "transport"), ("cause", "timeout")])),
            ("token", "present"), ("last_seq", .int(Int64(journal.lastSeq))),
        ]
    }

    static let source: JSON = .object([("id", "nfc:Virtual PCD 00 00"), ("medium", "nfc"), ("state", "ready")])
    /// The same source as `status` shows it, once it has scanned.
    static let scannedSource: JSON = .object([
        ("id", "nfc:Virtual PCD 00 00"), ("medium", "nfc"), ("state", "ready"), ("last_scan_at", "2026-12-01T11:59:00.000Z"),
    ])

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

    let passportQueries = Mutex<[PassportQuery]>([])

    /// Answers from another thread, as the daemon's reads do: the query's subject echoed as `asked`.
    func passport(_ query: PassportQuery, requestID: JSON, from client: ClientID) -> JSON? {
        passportQueries.withLock { $0.append(query) }
        DispatchQueue.global().async { [self] in
            server.answer(ServerAnswer.passport(id: requestID, [("asked", .string("\(query.subject)"))]), to: client)
        }
        return nil
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

/// A plain blocking client socket with timeouts, as any local program would open: the harness's line client,
/// with end of stream as nil and silence as an error, as these tests read the server.
final class TestClient {
    private let client: LineClient

    init(path: String) throws {
        client = try LineClient(path: path)
    }

    var descriptor: Int32 { client.descriptor }

    func send(_ text: String) {
        sendBytes(Array(text.utf8))
    }

    /// Sends what it can: a server that closed the connection is what some tests are after.
    func sendBytes(_ bytes: [UInt8]) {
        try? client.sendBytes(bytes)
    }

    /// The next line; nil at end of stream; throws when nothing comes in time.
    func readLine(timeout: Double = 5) throws -> String? {
        switch client.receive(timeout: .seconds(timeout)) {
        case .line(let line): return line
        case .end: return nil
        case .timedOut: throw TimedOut()
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
        client.isDisconnected(within: .seconds(timeout))
    }

    /// True when no line arrives within `quiet` seconds (an end of stream sends none either).
    func staysSilent(for quiet: Double = 0.3) -> Bool {
        if case .line = client.receive(timeout: .seconds(quiet)) { return false }
        return !client.hasPartialLine
    }
}

/// The sockets bound to `path`: the listener and every connection the server accepted and still holds open (an
/// accepted socket shows its listener's path in /proc/net/unix; a client's does not). Unlike this process's count of
/// descriptors, nothing another part of the test process opens or closes meanwhile changes it. Read to its end:
/// `String(contentsOfFile:)` stops after the first page of a /proc file, and this one holds every socket on the machine.
func serverSocketCount(path: String) -> Int {
    let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/unix")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    return table.split(separator: "\n").filter { $0.hasSuffix(" " + path) }.count
}

func waitUntil(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
