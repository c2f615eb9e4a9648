import Foundation
import Glibc
import KioskHarness
import JSONCore
import StationClient
import Testing

/// Misbehaving HTTP clients: the bridge stays up with bounded memory, and the daemon's socket clients notice nothing.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct BadRequestTests {
    static let methods = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "CONNECT", "BREW", "", "G\u{1}T"]
    static let alphabet = Array("abcXYZ019/._-~%?&=#:;@!$'()*+, \"<>\\^`{|}".utf8) + [0x00, 0x01, 0x7F, 0x80, 0xC3, 0xFF, 0x0A, 0x0D, 0x09]
    /// What a well-formed request may hold: token characters for names, visible ones for paths and values.
    static let token = Array("abcdefXYZ0123456789-_.~!$&'*+^`|".utf8)

    /// One request of random method, path and headers, sometimes malformed; the answer's status, or nil when closed.
    /// Half of them well-formed (random method, path and headers), half garbage.
    static func randomRequest(port: Int, using generator: inout some RandomNumberGenerator) -> Int? {
        guard let probe = try? HTTPProbe(port: port) else { return -1 }
        let wellFormed = Bool.random(using: &generator)
        let letters = wellFormed ? token : alphabet
        var bytes = Array((methods.randomElement(using: &generator) ?? "GET").utf8) + [0x20]
        bytes += Array("/".utf8) + (0..<Int.random(in: 0...60, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
        let versions = wellFormed ? [" HTTP/1.1", " HTTP/1.0"] : [" HTTP/1.1", " HTTP/1.0", " HTTP/9.9", "", " http/1.1"]
        bytes += Array(versions.randomElement(using: &generator)!.utf8) + [13, 10]
        bytes += Array("Host: 127.0.0.1\r\n".utf8)
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            let name = (0..<Int.random(in: 1...16, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
            let value = (0..<Int.random(in: 0...80, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
            bytes += name + Array(": ".utf8) + value + [13, 10]
        }
        if Bool.random(using: &generator) { bytes += Array("Content-Length: 5\r\n\r\nhello".utf8) } else { bytes += [13, 10] }
        probe.send(bytes)
        shutdown(probe.descriptor, Int32(SHUT_WR))
        return probe.readHead(timeout: .seconds(5))?.status
    }

    @Test func tenThousandRandomRequestsAndTooLongHeads() async throws {
        let rig = try StationRig()
        let port = rig.kiosk.port
        // The daemon's clients during the load: one that verifies, one that only watches.
        let station = try await rig.connect()
        defer { station.close() }
        let watcher = try await rig.connect()
        defer { watcher.close() }
        _ = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "warm-up")
        let residentBefore = rig.kiosk.resident()

        // 10,000 random requests from 8 clients at a time.
        let statuses = await withTaskGroup(of: [Int: Int].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var counts: [Int: Int] = [:]
                    for _ in stride(from: worker, to: 10_000, by: 8) {
                        counts[Self.randomRequest(port: port, using: &generator) ?? 0, default: 0] += 1
                    }
                    return counts
                }
            }
            var total: [Int: Int] = [:]
            for await counts in group { total.merge(counts, uniquingKeysWith: +) }
            return total
        }
        #expect(statuses.values.reduce(0, +) == 10_000)
        #expect(statuses[-1] == nil, "every connection was accepted: \(statuses)")
        let allowed: Set<Int> = [0, 200, 400, 404, 405, 414, 431, 505]
        #expect(Set(statuses.keys).isSubset(of: allowed), "answers: \(statuses)")
        #expect((statuses[405] ?? 0) > 1_000 && (statuses[404] ?? 0) > 100 && (statuses[400] ?? 0) > 1_000, "answers: \(statuses)")

        // Heads that are too long.
        let longLine = try HTTPProbe(port: port)
        _ = longLine.get("/" + String(repeating: "a", count: 9_000))
        #expect(longLine.readHead()?.status == 414)
        let longHeaders = try HTTPProbe(port: port)
        _ = longHeaders.get("/", headers: (0..<10).map { "X-Filler-\($0): " + String(repeating: "b", count: 1_000) })
        #expect(longHeaders.readHead()?.status == 431)
        let hugeHeader = try HTTPProbe(port: port)
        _ = hugeHeader.get("/", headers: ["X-Huge: " + String(repeating: "c", count: 200_000)])
        let huge = hugeHeader.readHead()?.status
        #expect(huge == 431 || huge == nil, "refused or closed: \(String(describing: huge))")

        #expect(rig.kiosk.isRunning)
        let residentAfter = rig.kiosk.resident()
        #expect(residentAfter < 96 << 20 && residentAfter - residentBefore < 64 << 20,
                "resident \(residentBefore >> 20) MiB before, \(residentAfter >> 20) MiB after")
        let (_, after) = try await verify("https://sealtrust.io/p/SN-00043", on: station, id: "after")
        try await Self.expectEverySeq(on: watcher, upTo: try #require(after["seq"]?.integerValue))
    }

    /// HEAD answers as GET, headers alike and no body; /events opens no stream for it; other methods are 405.
    @Test func headIsAnsweredAsGetWithoutItsBody() async throws {
        let rig = try StationRig()
        let port = rig.kiosk.port
        let station = try await rig.connect()
        defer { station.close() }
        _ = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "head")
        for (path, status) in [("/", 200), ("/metrics", 200), ("/healthz", 200), ("/events", 200), ("/nothing", 404)] {
            let get = try HTTPProbe(port: port)
            _ = get.get(path)
            let getHead = try #require(get.readHead(), "GET \(path)")
            let probe = try HTTPProbe(port: port)
            _ = probe.send("HEAD \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            let head = try #require(probe.readHead(), "HEAD \(path)")
            #expect(head.status == status && getHead.status == status, "HEAD \(path): \(head.status), GET: \(getHead.status)")
            #expect(head.headers["content-type"] == getHead.headers["content-type"], "HEAD \(path): \(head.headers)")
            if path != "/events" && path != "/metrics" && path != "/healthz" {
                #expect(head.headers["content-length"] == getHead.headers["content-length"], "HEAD \(path): \(head.headers)")
            }
            #expect(probe.readBody(length: 1, timeout: .seconds(2)) == nil, "HEAD \(path) sent a body")
        }
        let put = try HTTPProbe(port: port)
        _ = put.send("PUT / HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
        let refused = try #require(put.readHead())
        #expect(refused.status == 405 && refused.headers["allow"] == "GET, HEAD", "\(refused)")
    }

    /// The watching client saw every event, in order, without a gap, and was never disconnected.
    static func expectEverySeq(on watcher: StationConnection, upTo last: Int64) async throws {
        var seqs: [UInt64] = []
        while seqs.last.map({ Int64($0) }) != last, let message = await watcher.next() {
            if let seq = message.seq { seqs.append(seq) }
        }
        #expect(seqs == Array((seqs.first ?? 1)...UInt64(last)), "the watching client saw every event, without a gap")
        #expect(watcher.ending == nil, "no socket client was disconnected")
    }

    @Test func twoHundredStreamsAtOnce() async throws {
        let rig = try StationRig()
        let port = rig.kiosk.port
        let station = try await rig.connect()
        defer { station.close() }
        let watcher = try await rig.connect()
        defer { watcher.close() }
        let residentBefore = rig.kiosk.resident()

        // 200 event streams at once: at most 64 connections are served (the others wait in the listen backlog,
        // or are not accepted at all), and each served one gets the next verdict.
        var streams: [HTTPProbe] = []
        for _ in 0..<200 {
            if let probe = try? HTTPProbe(port: port, connectTimeout: .milliseconds(200)) {
                _ = probe.get("/events")
                streams.append(probe)
            }
        }
        var open: [HTTPProbe] = []
        for probe in streams where probe.readHead(timeout: open.count < 64 ? .seconds(2) : .milliseconds(20))?.status == 200 {
            open.append(probe)
        }
        #expect(open.count == 64, "\(open.count) streams served of \(streams.count) connected")
        let (_, during) = try await verify("https://sealtrust.io/p/SN-00043", on: station, id: "during-streams")
        let duringID = String(try #require(during["seq"]?.integerValue))
        var delivered = 0
        for probe in open {
            while let event = probe.nextEvent(timeout: .seconds(5)) {
                if event.id == duringID {
                    delivered += 1
                    break
                }
            }
        }
        #expect(delivered == open.count, "every open stream got the verdict")
        streams = []
        open = []
        // The clients left: their connections are freed within the bridge's sweep (a second), and the page is served.
        let deadline = ContinuousClock.now + .seconds(5)
        var page = try? httpGet(port: port, path: "/")
        while page?.status != 200, ContinuousClock.now < deadline { page = try? httpGet(port: port, path: "/") }
        #expect(page?.status == 200)
        #expect(rig.kiosk.resident() - residentBefore < 64 << 20)
        try await Self.expectEverySeq(on: watcher, upTo: try #require(during["seq"]?.integerValue))
    }

    @Test func aSlowReaderIsDroppedAndNobodyElseNotices() async throws {
        let rig = try StationRig()
        let port = rig.kiosk.port
        let station = try await rig.connect()
        defer { station.close() }
        let watcher = try await rig.connect()
        defer { watcher.close() }
        let residentBefore = rig.kiosk.resident()

        // A reader that never reads, while 3 MiB of events go by: its stream is ended at 1 MiB pending, the others go on.
        let slow = try HTTPProbe(port: port, receiveBuffer: 4_096)
        _ = slow.get("/events")
        let reader = try HTTPProbe(port: port)
        _ = reader.get("/events")
        #expect(reader.readHead()?.status == 200)
        let bulky = "https://example.com/" + String(repeating: "x", count: 60_000)
        var lastSeq: Int64 = 0
        for index in 0..<50 {
            lastSeq = try #require(try await verify(bulky + String(index), on: station, id: "bulk-\(index)").verdict["seq"]?.integerValue)
        }
        var readerGot = 0
        while let event = reader.nextEvent(timeout: .seconds(10)) {
            if event.id != nil { readerGot += 1 }
            if event.id == String(lastSeq) { break }
        }
        #expect(readerGot == 100, "a reading stream gets every scan and verdict")
        var slowGot = 0
        var slowLast = ""
        while let event = slow.nextEvent(timeout: .seconds(2)) {
            if let id = event.id {
                slowGot += 1
                slowLast = id
            }
        }
        #expect(slowGot < 100 && slowLast != String(lastSeq), "the slow stream was ended: it got \(slowGot) of 100 events")

        #expect(rig.kiosk.isRunning)
        #expect(try httpGet(port: port, path: "/healthz").status == 200)
        let residentAfter = rig.kiosk.resident()
        #expect(residentAfter < 96 << 20 && residentAfter - residentBefore < 64 << 20,
                "resident \(residentBefore >> 20) MiB before, \(residentAfter >> 20) MiB after")
        try await Self.expectEverySeq(on: watcher, upTo: lastSeq)
    }
}
