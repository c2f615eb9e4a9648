import DaemonConfiguration
import JSONCore
import StationCore
import StationWire
import Testing
import VerdictSocket

/// Lanes (issue 44): every event of a lane's source carries its name, a source in no lane's carries none, and
/// `status` counts each lane apart.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct LaneEventTests {
    static func lanes(_ options: inout DaemonOptions) {
        options.lanes = [
            Lane(name: "dock1", sources: ["y4m:/streams/dock1.y4m", "serial:/dev/ttyACM0"]),
            Lane(name: "dock2", sources: ["nfc:ACS ACR122U PICC Interface 01 00"]),
        ]
    }

    @Test func everyEventOfALanesSourceCarriesTheLaneAndNoOtherDoes() async throws {
        try await CoreRig.run(adjusting: Self.lanes) { rig, events in
            let core = rig.core
            core.receive(.state(SourceEvent(id: "y4m:/streams/dock1.y4m", medium: .qr, state: .ready, detail: "320x240")))
            let source = try await events.next("source")
            #expect(source["lane"] == "dock1" && source["id"] == "y4m:/streams/dock1.y4m")

            core.receive(.scan(ScanRead(raw: "plain text", source: "y4m:/streams/dock1.y4m", medium: .qr, readAt: .now)))
            let (scan, verdict) = try await events.scanAndVerdict(source: "y4m:/streams/dock1.y4m")
            #expect(scan["lane"] == "dock1" && verdict["lane"] == "dock1", "\(scan.encoded()) \(verdict.encoded())")

            core.receive(.readError(ReadFailure(source: "nfc:ACS ACR122U PICC Interface 01 00", medium: .nfc, reason: .emptyNDEF,
                                                detail: "no NDEF message")))
            let readError = try await events.next("read_error")
            #expect(readError["lane"] == "dock2")

            // A source in no lane, and a client's `verify`, are the station's as a whole: no lane at all.
            core.receive(.scan(ScanRead(raw: "plain text", source: "serial:/dev/ttyUSB9", medium: .serial, readAt: .now)))
            let (loneScan, loneVerdict) = try await events.scanAndVerdict(source: "serial:/dev/ttyUSB9")
            #expect(loneScan["lane"] == nil && loneVerdict["lane"] == nil)
            core.verify(raw: "plain text", requestID: "r", from: ClientID(rawValue: 1))
            let (manualScan, manualVerdict) = try await events.scanAndVerdict()
            #expect(manualScan["lane"] == nil && manualVerdict["lane"] == nil)

            let hello = JSON.object(core.helloFields())
            #expect(hello["lanes"] == .array(["dock1", "dock2"]))
            #expect(hello["sources"]?.arrayValue?.first?["lane"] == "dock1", "a source's lane in hello's list too")
            let status = JSON.object(core.statusFields())
            let lanes = try #require(status["lanes"]?.arrayValue)
            #expect(lanes.map { $0["name"] } == ["dock1", "dock2"])
            #expect(lanes[0]["sources"] == .array(["y4m:/streams/dock1.y4m", "serial:/dev/ttyACM0"]))
            #expect(lanes[0]["counters"]?["scans"] == .int(1) && lanes[0]["counters"]?["verdicts"]?["not_sealtrust"] == .int(1))
            #expect(lanes[1]["counters"]?["scans"] == .int(0) && lanes[1]["counters"]?["read_errors"]?["empty_ndef"] == .int(1))
            #expect(status["counters"]?["scans"] == .int(3), "the station counts every scan, lanes or not")
        }
    }

    /// Lanes are set at start: a screen's lane never changes under it. A reload names `lane` as needing a restart,
    /// and the lanes the daemon started with stay.
    @Test func aReloadKeepsTheLanesItStartedWith() async throws {
        try await CoreRig.run(adjusting: Self.lanes) { rig, events in
            var changed = CoreRig.options(directory: rig.directory)
            changed.lanes = [Lane(name: "desk", sources: ["manual"])]
            #expect(try rig.core.reconfigure(changed) == ["lane"])
            rig.core.verify(raw: "plain text", requestID: nil, from: ClientID(rawValue: 1))
            let (scan, _) = try await events.scanAndVerdict()
            #expect(scan["lane"] == nil)
            #expect(JSON.object(rig.core.helloFields())["lanes"] == .array(["dock1", "dock2"]))
        }
    }

    /// A station without lanes writes its events as before, and `status` lists no lane.
    @Test func aStationWithoutLanesWritesNoLane() async throws {
        try await CoreRig.run { rig, events in
            rig.core.verify(raw: "plain text", requestID: nil, from: ClientID(rawValue: 1))
            let (scan, verdict) = try await events.scanAndVerdict()
            #expect(scan["lane"] == nil && verdict["lane"] == nil)
            #expect(JSON.object(rig.core.statusFields())["lanes"] == .array([]))
        }
    }
}
