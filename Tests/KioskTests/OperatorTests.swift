import Foundation
import Glibc
import Harness
import KioskHarness
import Testing

/// What an operator meets running the bridge by hand, under systemd, and through `make demo` (issue 27).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct OperatorTests {
    /// Waits until `path` holds a line that contains `text`; its lines then.
    static func lines(of path: String, once text: String, timeout: Duration = .seconds(10)) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.contains(where: { $0.contains(text) }) { return lines }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("no line with \(text) in \(path)")
    }

    @Test(arguments: [false, true])
    func logLinesCarryAPriorityOnlyUnderJournaldAndSIGTERMIsAcleanStop(underJournald: Bool) async throws {
        let scratch = try ScratchDirectory("kiosk-log")
        let log = scratch.path + "/stderr"
        // JOURNAL_STREAM is what systemd sets when stderr goes to journald.
        let launcher = ["/usr/bin/env", "-u", "JOURNAL_STREAM"] + (underJournald ? ["JOURNAL_STREAM=8:4242"] : [])
            + ["/bin/sh", "-c", "exec \"$@\" 2>\"\(log)\"", "sh"]
        let kiosk = try KioskProcess(socketPath: scratch.path + "/no-daemon.sock", launcher: launcher)
        let lines = try await Self.lines(of: log, once: "the daemon is unreachable")
        if underJournald {
            // journald names the program itself: the line carries only its priority, as the daemon's do.
            #expect(lines.allSatisfy { ($0.hasPrefix("<6>") || $0.hasPrefix("<4>")) && !$0.contains("sealtrust-kiosk: ") }, "\(lines)")
        } else {
            #expect(lines.allSatisfy { $0.hasPrefix("sealtrust-kiosk: info: ") || $0.hasPrefix("sealtrust-kiosk: warning: ") },
                    "no <N> on a terminal or in a file: \(lines)")
        }
        #expect(kiosk.stop() == 0, "SIGTERM stops the bridge with 0")
    }

    @Test func listenTakesLocalhost() async throws {
        let scratch = try ScratchDirectory("kiosk-localhost")
        let kiosk = try KioskProcess(socketPath: scratch.path + "/no-daemon.sock", arguments: ["--listen", "localhost:0"])
        defer { kiosk.stop() }
        #expect(kiosk.base.hasPrefix("http://127.0.0.1:"))
        #expect(try httpGet(port: kiosk.port, path: "/", host: "localhost:\(kiosk.port)").status == 200)
    }

    /// `make demo` stops its screenshot browser with SIGTERM (demo/run-demo.sh's cleanup): its profile goes with it.
    @Test func theDemosScreenshotBrowserLeavesNoProfileBehind() async throws {
        let rig = try StationRig()
        let scratch = try ScratchDirectory("kiosk-demo-tmp")
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        let shooter = try ChildProcess("/usr/bin/python3", [repositoryRoot().appendingPathComponent("demo/kiosk-screenshot.py").path,
                                                            rig.pageURL, scratch.path + "/out/shot.png"], environment: environment)
        _ = try await shooter.waitForLine(timeout: .seconds(60)) { $0 == "ready" }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "the browser's profile is in TMPDIR")
        shooter.signal(SIGTERM)
        #expect(shooter.waitForExit(timeout: .seconds(20)) != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
        let browsers = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { entry in
            guard Int32(entry) != nil, let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8) else { return false }
            return command.contains(scratch.path)
        }
        #expect(browsers.isEmpty, "Chromium processes left running: \(browsers)")
    }
}
