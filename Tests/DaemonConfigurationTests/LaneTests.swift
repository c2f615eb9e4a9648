import DaemonConfiguration
import Foundation
import Testing
import TestSupport

/// `lane NAME = SOURCE[, SOURCE...]` and `--lane`: what an operator writes for a station of several lanes, and the
/// refusals that keep a lane's screen from staying silent (issue 44).
@Suite struct LaneTests {
    @Test func aLaneInTheFileNamesItsSourcesAsEventsDo() throws {
        let folder = try makeScratchDirectory()
        let config = folder + "/scand.conf"
        try """
            camera = y4m:dock1.y4m
            camera = y4m:/srv/dock2.y4m
            camera = /dev/video4
            scanner = serial:/dev/ttyACM0@115200
            lane dock1 = "nfc:ACS ACR122U PICC Interface 00 00", y4m:dock1.y4m
            lane dock-2 = y4m:/srv/dock2.y4m,serial:/dev/ttyACM0, /dev/video4
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let read = try options(["--config", config])
        #expect(read.cameras == [.y4m(folder + "/dock1.y4m"), .y4m("/srv/dock2.y4m"), .device("/dev/video4")])
        #expect(read.lanes == [
            Lane(name: "dock1", sources: ["nfc:ACS ACR122U PICC Interface 00 00", "y4m:\(folder)/dock1.y4m"]),
            Lane(name: "dock-2", sources: ["y4m:/srv/dock2.y4m", "serial:/dev/ttyACM0", "camera:/dev/video4"]),
        ], "quotes, blanks and a relative stream's folder as camera = takes them; a bare device is its camera")
        #expect(read.laneBySource["serial:/dev/ttyACM0"] == "dock-2" && read.laneBySource["manual"] == nil)
        // The flag's form; a flag replaces the file's lanes, as any repeated key.
        let flagged = try options(["--config", config, "--lane", "only=nfc:ACS", "--lane", "desk=manual"])
        #expect(flagged.lanes == [Lane(name: "only", sources: ["nfc:ACS"]), Lane(name: "desk", sources: ["manual"])])
        #expect(try options([]).lanes.isEmpty && options([]).cameras == [.auto], "no lane and one camera, auto, by default")
    }

    @Test func cameraRepeatsAndNoneGoesAlone() throws {
        #expect(try options(["--camera", "y4m:/a.y4m", "--camera", "/dev/video0"]).cameras == [.y4m("/a.y4m"), .device("/dev/video0")])
        #expect(try options(["--camera", "none"]).cameras.isEmpty)
        #expect(problem(["--camera", "none", "--camera", "/dev/video0"]) == "--camera: camera none goes with no other camera")
        #expect(problem(["--camera", "/dev/video0", "--camera", "/dev/video0"])?.hasSuffix("this camera is already named") == true)
    }

    @Test(arguments: [
        // A source in two lanes: its events could carry one name only.
        (["--lane", "a=nfc:ACS", "--lane", "b=y4m:/x.y4m,nfc:ACS"], "nfc:ACS is already in lane a: a source belongs to one lane at most"),
        // A lane naming no source.
        (["--lane", "a="], "lane a names no source there"),
        (["--lane", "a= , "], "lane a names no source there"),
        (["--lane", "a"], "expected NAME=SOURCE[,SOURCE...]"),
        (["--lane", "a=nfc:ACS", "--lane", "a=nfc:Other"], "lane a is already defined"),
        (["--lane", "a=nfc:ACS,nfc:ACS"], "lane a names nfc:ACS twice"),
        (["--lane", "dock 1=nfc:ACS"], "a lane's name is 1 to 32 letters, digits, '.', '_' or '-'"),
        (["--lane", "d\u{1b}[2J=nfc:ACS"], "a lane's name is 1 to 32"),
        (["--lane", String(repeating: "x", count: 33) + "=nfc:ACS"], "a lane's name is 1 to 32"),
        (["--lane", "a=nfc"], "nfc is not a source"),
        (["--lane", "a=nfc:"], "nfc: names no device"),
        (["--lane", "a=usb:3"], "usb:3 is not a source: expected nfc:READER, camera:DEVICE, y4m:PATH, evdev:PATH, serial:PATH or manual"),
        (["--lane", "a=nfc:AC\u{7}S"], "a source has a control character"),
    ])
    func aBadLaneIsRefusedWithItsReason(arguments: [String], reason: String) {
        let refusal = problem(arguments)
        #expect(refusal?.hasPrefix("--lane: bad value") == true && refusal?.contains(reason) == true, "\(refusal ?? "accepted")")
    }

    /// A source that this configuration can never see is refused, not left to a screen that never lights: a camera,
    /// stream or scanner not configured, a reader while NFC is off or filtered out. A reader's full name is known
    /// only once pcscd reports it, so any reader passes while NFC takes it.
    @Test func aLaneNamingASourceThatIsNotConfiguredIsRefused() throws {
        let refusals: [([String], String)] = [
            (["--camera", "y4m:/a.y4m", "--lane", "a=y4m:/b.y4m"], "--lane: lane a: y4m:/b.y4m is not a configured stream (camera = y4m:/b.y4m)"),
            (["--camera", "/dev/video0", "--lane", "a=camera:/dev/video1"], "--lane: lane a: camera:/dev/video1 is not a configured camera"),
            (["--lane", "a=evdev:/dev/input/event3"], "--lane: lane a: evdev:/dev/input/event3 is not a configured scanner"),
            (["--nfc", "none", "--lane", "a=nfc:ACS ACR122U"], "--lane: lane a: nfc:ACS ACR122U is a reader, and NFC is off (nfc = none)"),
            (["--nfc", "Identiv", "--lane", "a=nfc:ACS ACR122U"], "--lane: lane a: nfc:ACS ACR122U is a reader the daemon leaves alone"),
        ]
        for (arguments, reason) in refusals {
            #expect(problem(arguments)?.hasPrefix(reason) == true, "\(arguments): \(problem(arguments) ?? "accepted")")
        }
        #expect(try options(["--lane", "a=camera:/dev/video7"]).lanes.count == 1, "camera auto may find any device")
        #expect(try options(["--nfc", "ACS", "--lane", "a=nfc:ACS ACR122U 00 00"]).lanes.count == 1)
        #expect(try options(["--scanner", "evdev:/dev/input/event3", "--lane", "a=evdev:/dev/input/event3"]).lanes.count == 1)
    }

    /// The file's line names itself in a refusal, and `--check-config` refuses what the start refuses.
    @Test func theFilesLineIsNamedAndCheckConfigRefusesToo() throws {
        let config = try makeScratchDirectory() + "/scand.conf"
        try "lane a = nfc:ACS\n\nlane b = manual, nfc:ACS\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(problem(["--config", config]) == "\(config):3: bad value 'b=manual,nfc:ACS' for 'lane': nfc:ACS is already in lane a: a source belongs to one lane at most")
        #expect(problem(["--config", config, "--check-config"]) == problem(["--config", config]))
        try "camera = none\nlane a = y4m:x.y4m\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(problem(["--config", config, "--check-config"])?.hasPrefix("\(config):2: lane a: y4m:") == true)
    }
}
