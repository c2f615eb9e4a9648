import Dispatch
import Foundation
import JSONCore
import StationCore
import Synchronization
import Testing
import TestSupport
import VerdictSocket

/// The runtime that carries out the station's effects: in the order given, each result fed back after them, and the
/// server never waiting for the disk.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RuntimeTests {
    let client = ClientID(rawValue: 1)

    /// systemd's `STATUS=` shows the last line the runtime gave: it must say the journal refuses writes while it
    /// does, and stop saying it once it records again. Every append starts a segment (`segmentBytes: 1`), so taking
    /// the journal's directory away makes the next one fail; making it again lets the next one through.
    @Test func theLastStatusLineSaysWhenTheJournalStartsRefusingAndWhenItRecordsAgain() async throws {
        let history = try await CoreRig.run(segmentBytes: 1) { rig, events in
            rig.core.verify(raw: "WIFI:S:before;;", requestID: "before", from: client)
            _ = try await events.scanAndVerdict()
            try FileManager.default.removeItem(atPath: rig.directory + "/journal")
            rig.core.verify(raw: "WIFI:S:refused;;", requestID: "refused", from: client)
            let refusal = try await events.next("error")
            #expect(refusal["id"] == "refused" && refusal["code"] == "cannot_record", "\(refusal.encoded())")
            try FileManager.default.createDirectory(atPath: rig.directory + "/journal", withIntermediateDirectories: false)
            rig.core.verify(raw: "WIFI:S:after;;", requestID: "after", from: client)
            let (_, verdict) = try await events.scanAndVerdict()
            #expect(verdict["request_id"] == "after")
            return rig.statusHistory
        }
        let refusing = ", CANNOT RECORD: the journal refuses writes"
        // The line of the start (the journal's deferred scans taken up, none here) comes before or after the first scan's.
        #expect(history.all.filter { $0 != "0 readers ready, no camera, 0 scans" } == [
            "0 readers ready, no camera, 1 scan",
            "0 readers ready, no camera, 2 scans",
            "0 readers ready, no camera, 2 scans" + refusing,
            "0 readers ready, no camera, 3 scans" + refusing,
            "0 readers ready, no camera, 3 scans",
        ])
    }

    /// A connect's `hello` and a `status` carry the journal's last seq: they are answered while an event's
    /// fdatasync is held (as on a slow disk), with the seq made durable before it.
    @Test func helloAndStatusAreAnsweredWhileAnEventWaitsForTheDisk() async throws {
        let disk = HeldDisk()
        try await CoreRig.run(beforeSync: disk.sync) { rig, events in
            rig.core.verify(raw: "WIFI:S:first;;", requestID: "first", from: client)
            _ = try await events.scanAndVerdict()
            let socketPath = rig.directory + "/scand.sock"
            let server = VerdictServer(configuration: VerdictServerConfiguration(path: socketPath))
            try server.start(journal: rig.journal, delegate: rig.core)
            defer { server.stop() }

            disk.hold()
            rig.core.verify(raw: "WIFI:S:held;;", requestID: "held", from: client)
            await disk.reached()
            let connection = try LineClient(path: socketPath)
            let hello = connection.receive(timeout: .seconds(5))
            try connection.send(#"{"cmd":"status","id":"s"}"#)
            let status = connection.receive(timeout: .seconds(5))
            disk.release()
            guard case .line(let helloLine) = hello, case .line(let statusLine) = status else {
                Issue.record("while an fdatasync was held: hello \(hello), status \(status)")
                return
            }
            #expect(try JSON.parse(helloLine)["last_seq"] == 2, "\(helloLine)")
            let answer = try JSON.parse(statusLine)
            #expect(answer["type"] == "status" && answer["last_seq"] == 2, "\(statusLine)")
            let (scan, _) = try await events.scanAndVerdict()
            #expect(scan["seq"] == 3 && scan["request_id"] == "held")
        }
    }
}

/// A disk whose next fdatasync waits until the test lets it go.
final class HeldDisk: Sendable {
    private let armed = Mutex(false)
    private let reachedSignal: AsyncStream<Void>
    private let reachedContinuation: AsyncStream<Void>.Continuation
    private let released = DispatchSemaphore(value: 0)

    init() {
        (reachedSignal, reachedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Holds the next fdatasync.
    func hold() {
        armed.withLock { $0 = true }
    }

    /// Returns once the held fdatasync is reached.
    func reached() async {
        for await _ in reachedSignal { return }
    }

    func release() {
        released.signal()
    }

    /// The journal's `beforeSync`.
    func sync() {
        guard armed.withLock({ armed in defer { armed = false }; return armed }) else { return }
        reachedContinuation.yield()
        released.wait()
    }
}
