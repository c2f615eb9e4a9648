import Foundation
import KioskHarness
import JSONCore
import StationClient
import TestSupport
import Testing

/// `/events`: Server-Sent Events with the socket's JSON unchanged, resumed by `Last-Event-ID` through `replay`.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct EventStreamTests {
    /// The journaled events a socket client sees, by seq, as lines.
    static func journaled(from station: StationConnection, until seq: Int64) async -> [(seq: Int64, type: String, line: String)] {
        var events: [(Int64, String, String)] = []
        while let message = await station.next() {
            guard let eventSeq = message.seq.map({ Int64($0) }) else { continue }
            events.append((eventSeq, message.type.name, message.line))
            if eventSeq >= seq { break }
        }
        return events
    }

    @Test func aClientThatComesBackWithLastEventIDGetsExactlyWhatItMissed() async throws {
        let rig = try StationRig()
        let station = try await rig.connect()
        defer { station.close() }
        // A subscriber of the socket that sends nothing: it sees every journaled event.
        let watcher = try await rig.connect()
        defer { watcher.close() }
        let (_, before) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "before")
        // Once the bridge has passed that verdict on (its latency is in the histogram), it is the past.
        let deadline = ContinuousClock.now + .seconds(10)
        while try !httpGet(port: rig.kiosk.port, path: "/metrics").body.contains("sealtrust_verdict_latency_seconds_count 1"),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }

        let first = try HTTPProbe(port: rig.kiosk.port)
        #expect(first.get("/events"))
        let head = try #require(first.readHead())
        #expect(head.status == 200 && head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        let opening = try #require(first.nextEvent())
        #expect(opening.retry == "1000" || opening.name == "station")
        var sawOnline = opening.name == "station" && opening.data.contains("online")
        while !sawOnline, let event = first.nextEvent() {
            sawOnline = event.name == "station" && event.data.contains("online")
            #expect(event.id == nil, "without Last-Event-ID the stream starts live: nothing from before")
        }
        #expect(sawOnline)

        let (_, live) = try await verify("https://id.gs1.org/01/09506000134352", on: station, id: "live")
        let liveSeq = try #require(live["seq"]?.integerValue)
        var received: [ServerSentEvent] = []
        var previous: ServerSentEvent?
        while received.last?.id != String(liveSeq), let event = first.nextEvent() {
            defer { previous = event }
            // What the page shows now comes first, after the time it has left on the screen (outputs.md, "On load");
            // every verdict after it comes after its own time on the screen too.
            if event.id == before["seq"]?.integerValue.map(String.init) {
                #expect(previous?.name == "hold", "only the verdict on the screen, with its time left: \(event)")
            } else if event.id != nil {
                received.append(event)
            }
        }
        #expect(received.first.flatMap { Int64($0.id ?? "") } == (before["seq"]?.integerValue ?? 0) + 1, "the stream starts live")
        let lastSeen = try #require(received.last?.id)
        #expect(lastSeen == String(liveSeq))
        _ = first   // the page goes away here

        var missedLast: Int64 = 0
        for index in 0..<3 {
            missedLast = try #require(try await verify("https://sealtrust.io/p/SN-0004\(index + 3)", on: station, id: "m\(index)").verdict["seq"]?.integerValue)
        }
        let second = try HTTPProbe(port: rig.kiosk.port)
        #expect(second.get("/events", headers: ["Last-Event-ID: \(lastSeen)"]))
        #expect(second.readHead()?.status == 200)
        var resumed: [ServerSentEvent] = []
        while resumed.last?.id != String(missedLast), let event = second.nextEvent() {
            if event.id != nil { resumed.append(event) }
        }

        // What the daemon's own subscriber saw after the last event the page had: the same, in order, byte for byte.
        let seen = await Self.journaled(from: watcher, until: missedLast).filter { $0.seq > liveSeq }
        #expect(resumed.map(\.id) == seen.map { String($0.seq) }, "exactly the missed events, none lost, none doubled")
        #expect(resumed.map(\.name) == seen.map { Optional($0.type) })
        #expect(resumed.map(\.data) == seen.map(\.line), "each event's data is the socket's JSON, unchanged")
        #expect(seen.count == 6, "three scans and three verdicts")

        let (_, after) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "after")
        var next = second.nextEvent()
        while next?.id == nil, next != nil { next = second.nextEvent() }
        #expect(next.flatMap { Int64($0.id ?? "") } == missedLast + 1, "then live, from the next seq")
        _ = after
    }

    /// The unit says MemoryDenyWriteExecute=yes: the bridge serves its page and a stream under PR_SET_MDWE.
    @Test func theBridgeNeedsNoWritableExecutableMemory() async throws {
        let rig = try StationRig()
        let guarded = try KioskProcess(socketPath: rig.socketPath, launcher: ["/usr/bin/python3", "-c", refuseWriteExecute])
        defer { guarded.stop() }
        #expect(try httpGet(port: guarded.port, path: "/").status == 200)
        let stream = try HTTPProbe(port: guarded.port)
        #expect(stream.get("/events") && stream.readHead()?.status == 200)
        // The bridge starts live: a verdict journaled before it reached the daemon is not its to pass on.
        var online = false
        while !online, let event = stream.nextEvent() { online = event.name == "station" && event.data.contains("\"online\"") }
        #expect(online)
        let station = try await rig.connect()
        defer { station.close() }
        let (_, verdict) = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "mdwe")
        var event = stream.nextEvent()
        while event != nil, event?.name != "verdict" { event = stream.nextEvent() }
        #expect(event?.id == verdict["seq"]?.integerValue.map { String($0) })
        #expect(guarded.isRunning)
    }
}
