import Foundation
import Glibc
import JSONCore
import Testing
import TestSupport

/// A journal that refuses writes (a full disk, a directory read-only at rotation): every `verify` is answered
/// `cannot_record`, no API call is made for a scan the station could not record, `status` and the log say so
/// (the log once), and the daemon records again by itself once the disk allows it.
///
/// The daemon runs in a mount namespace of its own (`unshare --mount`), where its journal's filesystem is a small
/// tmpfs or a read-only bind: the machine's mounts are never touched.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct JournalRefusalTests {
    @Test func aFullDiskIsAnsweredCannotRecordWithoutAnyAPICallAndTheDaemonRecoversWhenThereIsRoom() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        let journal = directory + "/journal"
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
        // A 1 MiB tmpfs over the journal, filled to the last block before the daemon starts.
        let fill = #"mount -t tmpfs -o size=1m,mode=0755 sealtrust-test "$1" && { dd if=/dev/zero of="$1/filler" bs=4096 2>/dev/null; true; } && shift && exec "$@""#
        let daemon = try ScanDaemon(api: api, directory: directory,
                                    launcher: PrivateMounts.unshare + ["/bin/sh", "-c", fill, "sh", journal]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let chipURL = try mintChipURL("authentic", counter: 10)
        for (raw, id) in [(chipURL, "chip"), ("https://sealtrust.io/p/SN-00042", "printed"), ("WIFI:S:guest;;", "foreign")] {
            let refusal = try client.refusedVerify(raw, id: id)
            #expect(refusal["detail"]?.string?.contains("No space left on device") == true, "\(refusal.encoded())")
        }
        #expect(try await api.requests().isEmpty, "an API call for a scan the station could not record")
        let refusing = try client.status()
        #expect(refusing["journal_error"]?["detail"]?.string?.contains("No space left on device") == true, "\(refusing.encoded())")
        #expect(daemon.process.standardError.components(separatedBy: "the station cannot record").count - 1 == 1,
                "the log says it once, not per scan: \(daemon.process.standardError)")

        try PrivateMounts.run(in: daemon.pid, ["rm", journal + "/filler"])
        let recorded = try client.verify(chipURL, id: "chip-again")
        #expect(recorded.verdict["outcome"]?.string == "authentic", "\(recorded.verdict.encoded())")
        let calls = try await api.requests().filter { $0.path == "/scans/verify" }.map { try JSON.parse($0.body)["url"]?.string }
        #expect(calls == [chipURL])
        #expect(try client.status()["journal_error"] == nil)
        #expect(daemon.process.standardError.contains("the journal records again"))
        let peak = daemon.peakResident()
        print("defect 5 (full disk): peak resident \(String(format: "%.1f", Double(peak) / 1_048_576)) MiB")
        #expect(peak > 0 && peak < 64 << 20, "defect 5: peak resident \(peak) bytes")
    }

    /// The disk filled while a chip's call was out: the call was made (the chip URL spent), then the verdict did not
    /// fit, the requester got `cannot_record` and the journal kept a scan with no verdict. The scan now keeps its
    /// verdict's room: the call is held at the sandbox while the test fills the disk, and the verdict still arrives
    /// and is journaled. Its request id (5,000 bytes, which the verdict repeats) makes the verdict need blocks of its own.
    @Test func aDiskFillingDuringACallStillJournalsAndPublishesItsVerdict() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        try await api.fault(path: "/scans/verify", count: 1, hold: true)
        let directory = try makeScratchDirectory()
        let journal = directory + "/journal"
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
        let mount = #"mount -t tmpfs -o size=1m,mode=0755 sealtrust-test "$1" && shift && exec "$@""#
        let daemon = try ScanDaemon(api: api, directory: directory,
                                    launcher: PrivateMounts.unshare + ["/bin/sh", "-c", mount, "sh", journal]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let id = String(repeating: "i", count: 5_000)
        let chipURL = try mintChipURL("authentic", counter: 10)
        try client.send(.object([("cmd", "verify"), ("raw", .string(chipURL)), ("id", .string(id))]))
        let scan = try #require(try client.next { $0["type"]?.string == "scan" && $0["request_id"]?.string == id })
        // The call is out and held; the disk fills to its last block.
        let fill = #"dd if=/dev/zero of="$1/filler" bs=4096 2>/dev/null; true"#
        try PrivateMounts.run(in: daemon.pid, ["/bin/sh", "-c", fill, "sh", journal])
        try await api.release()
        var seen: [JSON] = []
        let answer = try #require(try client.next(seen: &seen) {
            $0["request_id"]?.string == id && $0["type"]?.string == "verdict" || $0["id"]?.string == id && $0["type"]?.string == "error"
        })
        #expect(answer["type"]?.string == "verdict" && answer["outcome"]?.string == "authentic", "\(answer.encoded().prefix(300))")
        #expect(answer["scan_id"] == scan["scan_id"])
        #expect(try await api.requests().filter { $0.path == "/scans/verify" }.count == 1)

        // The disk is still full: scans go on only as far as the journal's own room keeps a verdict's room after
        // them; each one verified has its verdict, and the first refused has no call.
        var verdicts = 1
        var refused: JSON?
        for counter in 11..<40 where refused == nil {
            let next = "\(counter)" + id
            try client.send(.object([("cmd", "verify"), ("raw", .string(try mintChipURL("authentic", counter: counter))), ("id", .string(next))]))
            let reply = try #require(try client.next {
                $0["request_id"]?.string == next && $0["type"]?.string == "verdict" || $0["id"]?.string == next && $0["type"]?.string == "error"
            })
            if reply["type"]?.string == "verdict" {
                #expect(reply["outcome"]?.string == "authentic", "\(reply.encoded().prefix(300))")
                verdicts += 1
            } else {
                refused = reply
            }
        }
        #expect(refused?["code"]?.string == "cannot_record", "no scan was refused on a full disk")
        #expect(try await api.requests().filter { $0.path == "/scans/verify" }.count == verdicts, "a call without its verdict")
        let replay = try LineClient(path: daemon.socketPath)
        _ = try replay.readJSON()
        try replay.send(.object([("cmd", "replay"), ("since", 0)]))
        let journaled = try #require(try replay.next { $0["type"]?.string == "verdict" })
        #expect(journaled["scan_id"] == scan["scan_id"] && journaled["outcome"]?.string == "authentic")
    }

    @Test func aDirectoryMadeReadOnlyAtRotationIsAnsweredCannotRecordUntilItIsWritableAgain() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let directory = try makeScratchDirectory()
        let journal = directory + "/journal"
        // 1 MiB in all: a new segment every 128 KiB.
        let daemon = try ScanDaemon(api: api, extra: ["--journal-max-bytes", "1048576"], directory: directory,
                                    launcher: PrivateMounts.unshare).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        _ = try client.verify("WIFI:S:before;;", id: "before")

        // The open segment still takes writes; the event that must open a new one (after 128 KiB) cannot.
        try PrivateMounts.run(in: daemon.pid, ["mount", "--bind", journal, journal])
        try PrivateMounts.run(in: daemon.pid, ["mount", "-o", "remount,bind,ro", journal])
        let long = String(repeating: "x", count: 60_000)
        var answers: [JSON] = []
        for index in 0..<4 where answers.last?["type"]?.string != "error" {
            let id = "fill-\(index)"
            try client.send(.object([("cmd", "verify"), ("raw", .string("\(long)\(index)")), ("id", .string(id))]))
            answers.append(try #require(try client.next {
                ($0["type"]?.string == "verdict" && $0["request_id"]?.string == id) || ($0["type"]?.string == "error" && $0["id"]?.string == id)
            }))
        }
        #expect(answers.last?["code"]?.string == "cannot_record", "\(answers.map { $0.encoded() })")
        let chipURL = try mintChipURL("authentic", counter: 10)
        let refusal = try client.refusedVerify(chipURL, id: "chip")
        #expect(refusal["detail"]?.string?.contains("Read-only file system") == true, "\(refusal.encoded())")
        _ = try client.refusedVerify("https://sealtrust.io/p/SN-00042", id: "printed")
        #expect(try await api.requests().isEmpty, "an API call for a scan the station could not record")
        #expect(try client.status()["journal_error"]?["detail"]?.string?.contains("Read-only file system") == true)

        try PrivateMounts.run(in: daemon.pid, ["umount", journal])
        let recorded = try client.verify(chipURL, id: "chip-again")
        #expect(recorded.verdict["outcome"]?.string == "authentic", "\(recorded.verdict.encoded())")
        #expect(try await api.requests().filter { $0.path == "/scans/verify" }.count == 1)
        #expect(try client.status()["journal_error"] == nil)
        let segments = try FileManager.default.contentsOfDirectory(atPath: journal).filter { $0.hasSuffix(".jsonl") }
        #expect(segments.count == 2, "\(segments)")
    }
}

/// Mounts that only the daemon under test sees: a mount namespace of its own, entered again with nsenter.
enum PrivateMounts {
    /// Runs what follows in a new mount namespace whose mounts never propagate back (without root, a user
    /// namespace grants the mounts).
    static var unshare: [String] {
        getuid() == 0
            ? ["/usr/bin/unshare", "--mount", "--propagation", "private"]
            : ["/usr/bin/unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    }

    /// Runs `command` in the mount namespace of `pid`; throws with what it printed when it fails.
    static func run(in pid: pid_t, _ command: [String]) throws {
        let enter = getuid() == 0 ? ["-t", "\(pid)", "-m", "--"] : ["-t", "\(pid)", "-U", "-m", "--preserve-credentials", "--"]
        try runTool("/usr/bin/nsenter", enter + command)
    }
}

extension LineClient {
    /// Sends a `verify` that the daemon must answer `cannot_record`, with no `scan` or `verdict` before the answer.
    func refusedVerify(_ raw: String, id: String) throws -> JSON {
        try send(.object([("cmd", "verify"), ("raw", .string(raw)), ("id", .string(id))]))
        var seen: [JSON] = []
        let answer = try next(seen: &seen) { $0["type"]?.string == "error" && $0["id"]?.string == id }
        #expect(answer?["code"]?.string == "cannot_record", "\(seen.map { $0.encoded() })")
        #expect(!seen.contains { $0["request_id"]?.string == id }, "an event for a scan the journal refused")
        return try #require(answer)
    }

    func status() throws -> JSON {
        try send(.object([("cmd", "status"), ("id", "status")]))
        return try #require(try next { $0["type"]?.string == "status" })
    }
}
