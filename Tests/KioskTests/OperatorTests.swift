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

    /// `--theme` replaces colours by name on the page; an unknown name or a value that is not a hex colour stops the
    /// start with its name, and nothing from the file reaches the style sheet but hex digits.
    @Test func aThemeReplacesColoursByNameAndAnUnknownNameIsRefusedWithIt() async throws {
        let scratch = try ScratchDirectory("kiosk-theme")
        let theme = scratch.path + "/theme.json"
        try ##"{"good": "#0b6e35", "text": "#fefefe"}"##.write(toFile: theme, atomically: true, encoding: .utf8)
        let kiosk = try KioskProcess(socketPath: scratch.path + "/no-daemon.sock", arguments: ["--theme", theme])
        let page = try httpGet(port: kiosk.port, path: "/")
        #expect(page.body.contains("--good: #0b6e35;") && page.body.contains("--text: #fefefe;"), "the replaced colours")
        #expect(page.body.contains("--alert: #b0001e;") && page.body.contains("--unavailable: #6b4400;"), "the others as they were")
        #expect(kiosk.stop() == 0)

        for (file, said) in [(##"{"gold": "#fff"}"##, "unknown colour gold"), (#"{"good": "red; } body { display: none"}"#, "good must be #rgb or #rrggbb"),
                             ("[1, 2]", "not a JSON object"), (##"{"good": "#0b6e35", "good": "#0c6f36"}"##, "good is given twice"),
                             (##"{"good": "#0b6e35",\##n "text": "#fefefe",\##n}"##, "line 3, column 1: a comma before '}'"),
                             ("\u{FEFF}{}", "begins with a UTF-8 byte order mark")] {
            try file.write(toFile: theme, atomically: true, encoding: .utf8)
            let output = scratch.path + "/output"
            let refused = try ChildProcess(builtProduct("sealtrust-kiosk"), ["--theme", theme, "--listen", "127.0.0.1:0"], output: .file(output))
            #expect(refused.waitForExit(timeout: .seconds(10)) == 2, "\(file)")
            #expect(refused.printed.contains(said), "\(file): \(refused.printed)")
            #expect(!refused.printed.contains("usage:"), "a file error is not a usage error: \(refused.printed)")
            try? FileManager.default.removeItem(atPath: output)
        }
    }

    /// A `--texts` file with a byte that is not UTF-8 is refused by its place, without the usage; a mistyped option
    /// still gets the usage.
    @Test func aTextsFileErrorSaysWhereAndNotTheUsage() throws {
        let scratch = try ScratchDirectory("kiosk-texts-syntax")
        let texts = scratch.path + "/texts.json"
        try Data(Array(#"{"en": {"kiosk.idle": "Tap"#.utf8) + [0xFF] + Array(#""}}"#.utf8)).write(to: URL(fileURLWithPath: texts))
        let refused = try ChildProcess(builtProduct("sealtrust-kiosk"), ["--texts", texts, "--listen", "127.0.0.1:0"], output: .file(scratch.path + "/out"))
        #expect(refused.waitForExit(timeout: .seconds(10)) == 2)
        #expect(refused.printed.contains("invalid UTF-8 at byte 27 (line 1, column 27): 0xFF"), "\(refused.printed)")
        #expect(!refused.printed.contains("usage:"), "\(refused.printed)")
        let mistyped = try ChildProcess(builtProduct("sealtrust-kiosk"), ["--hodl", "3"], output: .file(scratch.path + "/out2"))
        #expect(mistyped.waitForExit(timeout: .seconds(10)) == 2)
        #expect(mistyped.printed.contains("usage:"), "\(mistyped.printed)")
    }

    @Test func listenTakesLocalhost() async throws {
        let scratch = try ScratchDirectory("kiosk-localhost")
        let kiosk = try KioskProcess(socketPath: scratch.path + "/no-daemon.sock", arguments: ["--listen", "localhost:0"])
        defer { kiosk.stop() }
        #expect(kiosk.base.hasPrefix("http://127.0.0.1:"))
        #expect(try httpGet(port: kiosk.port, path: "/", host: "localhost:\(kiosk.port)").status == 200)
    }

    /// `make demo` into a log: it ends well, writes no terminal escape codes there, and leaves nothing in the temporary
    /// folder (the virtual tag's removal stamps included).
    @Test func theDemoIntoALogLeavesNoEscapeCodesAndNothingInTheTemporaryFolder() async throws {
        let scratch = try ScratchDirectory("demo-log")
        let temporary = scratch.path + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        environment["NO_COLOR"] = nil
        // The products this test runs from: `swift build` is not run while `swift test` holds the build folder.
        environment["SEALTRUST_BIN"] = URL(fileURLWithPath: builtProduct("sealtrust-scand")).deletingLastPathComponent().path
        let log = scratch.path + "/demo.log"
        let demo = try ChildProcess("/bin/bash", [repositoryRoot().appendingPathComponent("demo/run-demo.sh").path], environment: environment,
                                    output: .file(log))
        #expect(demo.waitForExit(timeout: .seconds(110)) == 0, "\(demo.printed)")
        let printed = try Data(contentsOf: URL(fileURLWithPath: log))
        #expect(!printed.contains(0x1B), "escape codes in the log: \(String(decoding: printed, as: UTF8.self).prefix(400))")
        #expect(String(decoding: printed, as: UTF8.self).contains("== Done: stopping everything the demo started"))
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(left.isEmpty, "left in the temporary folder: \(left)")
    }

    /// `make demo` stops its screenshot browser with SIGTERM (demo/run-demo.sh's cleanup): its profile goes with it.
    @Test func theDemosScreenshotBrowserLeavesNoProfileBehind() async throws {
        let rig = try StationRig()
        // A short name: Chromium's singleton socket goes in a folder of the profile in this one (108 bytes at most).
        let scratch = try ScratchDirectory("demo")
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

    /// The tests' own browser ends with the test that opened it: no Chromium left running beside the rest of the
    /// suite, no profile left in the temporary folder.
    @Test func aTestsBrowserEndsWithItsOwnerAndLeavesNoProfile() async throws {
        let rig = try StationRig()
        var ended: (pid: pid_t, profile: String)?
        do {
            let browser = try Chromium()
            _ = try await browser.open(rig.pageURL).waitForOutcome("idle")
            ended = (browser.pid, browser.profile)
        }
        let (pid, profile) = try #require(ended)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "Chromium \(pid) still runs")
        #expect(!FileManager.default.fileExists(atPath: profile), "left: \(profile)")
    }
}
