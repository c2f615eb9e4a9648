import Foundation
import Glibc
import ProductVersion
import TestSupport
import Testing

/// Bad flags and configuration files stop the daemon at start with one line naming the problem, and exit 2.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct CommandLineTests {
    func run(_ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
        let process = try ChildProcess(service: builtProduct("sealtrust-scand"), arguments: arguments)
        let status = process.waitForExit(timeout: .seconds(20))
        return (status, process.standardOutput, process.standardError)
    }

    func configFile(_ text: String) throws -> String {
        let path = try makeScratchDirectory() + "/scand.conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func removeFolder(of file: String) {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path)
    }

    @Test func badFlagsExitTwoWithOneLine() throws {
        let unknown = try run(["--colour", "red"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "sealtrust-scand: unknown option --colour (see --help)\n")
        let badValue = try run(["--lang", "de"])
        #expect(badValue.status == 2)
        #expect(badValue.stderr.split(separator: "\n").count == 1 && badValue.stderr.contains("--lang") && badValue.stderr.contains("en or fr"))
        let missing = try run(["--socket"])
        #expect(missing.status == 2 && missing.stderr.contains("--socket needs a value"))
        let huge = try run(["--rescan-after", "1e16"])
        #expect(huge.status == 2)
        #expect(huge.stderr == "sealtrust-scand: --rescan-after: bad value '1e16' for 'rescan-after': expected seconds from 0 to 3600\n")
        let lonely = try run(["--latitude", "45.76", "--socket", "/tmp/x.sock"])
        #expect(lonely.status == 2 && lonely.stderr.contains("latitude and longitude go together"))
    }

    @Test func configurationProblemsNameFileAndLine() throws {
        let unknownKey = try configFile("# a station\napi-timeout = 5\ncolour = red\n")
        defer { removeFolder(of: unknownKey) }
        let first = try run(["--config", unknownKey])
        #expect(first.status == 2)
        #expect(first.stderr == "sealtrust-scand: \(unknownKey):3: unknown key 'colour'\n")

        let badValue = try configFile("nfc = auto\n\n  api-timeout=soon\n")
        defer { removeFolder(of: badValue) }
        let second = try run(["--config", badValue])
        #expect(second.status == 2)
        #expect(second.stderr.hasPrefix("sealtrust-scand: \(badValue):3: bad value 'soon' for 'api-timeout'"))

        let unreadable = try run(["--config", "/nonexistent/scand.conf"])
        #expect(unreadable.status == 2 && unreadable.stderr.contains("/nonexistent/scand.conf"))
    }

    @Test func aFlagReplacesTheFilesValueAndRepeatedHostsAddUp() throws {
        let directory = try makeScratchDirectory()
        let config = try configFile("""
            socket = /nonexistent/dir/scand.sock
            journal = \(directory)/journal
            nfc = none
            camera = none
            host = brand.example
            host = nfc.maison-exemple.com
            """)
        defer { removeFolder(of: config) }
        let daemon = try ScanDaemon(api: nil, extra: ["--config", config], directory: directory).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        let extraHost = try client.verify("https://nfc.maison-exemple.com/p/SN-00042", id: "h").scan
        #expect(extraHost["code"]?.string == "printed_serial", "the second host of the file counts")
    }

    @Test func versionAndHelp() throws {
        let version = try run(["--version"])
        #expect(version.status == 0 && version.stdout == "sealtrust-scand \(ProductVersion.current)\n")
        let help = try run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("--rescan-after SECONDS"))
    }

    /// An operator compares versions across the daemon, its client, the bridges, the package and the man pages.
    @Test func everyProgramThePackageAndTheManPagesShowOneVersion() throws {
        for program in ["sealtrust-scand", "sealtrust-scanctl", "sealtrust-mqtt", "sealtrust-kiosk"] {
            let printed = try runProduct(program, ["--version"])
            #expect(printed.status == 0 && printed.output == "\(program) \(ProductVersion.current)\n", "\(printed)")
        }
        let root = repositoryRoot()
        let changelog = try String(contentsOf: root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        #expect(changelog.hasPrefix("sealtrust-scand (\(ProductVersion.current)) "), "debian/changelog's newest entry")
        let manPages = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("man").path)
        #expect(!manPages.isEmpty)
        for page in manPages {
            let text = try String(contentsOf: root.appendingPathComponent("man/\(page)"), encoding: .utf8)
            let heading = text.split(separator: "\n").first { $0.hasPrefix(".TH ") } ?? ""
            #expect(heading.contains(" \(ProductVersion.current)\""), "\(page): \(heading)")
        }
    }
}

/// `--scanner` and `--scanner-keymap`, on the command line and in the file.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ScannerOptionTests {
    func run(_ arguments: [String]) throws -> (status: Int32?, stderr: String) {
        let process = try ChildProcess(service: builtProduct("sealtrust-scand"), arguments: arguments)
        let status = process.waitForExit(timeout: .seconds(20))
        return (status, process.standardError)
    }

    @Test func badScannersExitTwoWithOneLine() throws {
        let kind = try run(["--scanner", "usb:/dev/ttyACM0"])
        #expect(kind.status == 2 && kind.stderr.contains("evdev:PATH or serial:PATH[@BAUD]"))
        let baud = try run(["--scanner", "serial:/dev/ttyACM0@9601"])
        #expect(baud.status == 2 && baud.stderr.contains("baud rate must be one of"))
        let twice = try run(["--scanner", "serial:/dev/ttyACM0", "--scanner", "serial:/dev/ttyACM0@115200"])
        #expect(twice.status == 2 && twice.stderr.contains("serial:/dev/ttyACM0 is already named"))
        let keymap = try run(["--scanner-keymap", "uk"])
        #expect(keymap.status == 2 && keymap.stderr.split(separator: "\n").count == 1 && keymap.stderr.contains("us, de or fr"))
    }

    @Test func theFilesScannersAreEachASourceAndAFlagReplacesThem() throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/scand.conf"
        try """
            scanner = evdev:\(directory)/kbd
            scanner = serial:\(directory)/tty@115200
            scanner-keymap = fr
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let fromFile = try ScanDaemon(api: nil, extra: ["--config", config], directory: directory).waitUntilListening()
        let (client, hello) = try fromFile.connect()
        var seen = hello["sources"]?.arrayValue ?? []
        while Set(seen.compactMap { $0["id"]?.string }).count < 2,
              let event = try client.next(where: { $0["type"]?.string == "source" }) { seen.append(event) }
        #expect(Set(seen.compactMap { $0["id"]?.string }) == ["evdev:\(directory)/kbd", "serial:\(directory)/tty"])
        #expect(Set(seen.compactMap { $0["medium"]?.string }) == ["hid", "serial"])
        #expect(seen.allSatisfy { $0["state"]?.string == "absent" }, "a scanner not plugged in is absent, not an error")
        client.close()
        _ = fromFile.terminate()

        let replaced = try ScanDaemon(api: nil, extra: ["--config", config, "--scanner", "evdev:\(directory)/other"], directory: directory)
            .waitUntilListening()
        defer { _ = replaced.terminate() }
        let (second, secondHello) = try replaced.connect()
        var ids = secondHello["sources"]?.arrayValue?.compactMap { $0["id"]?.string } ?? []
        if ids.isEmpty, let event = try second.next(where: { $0["type"]?.string == "source" }) { ids = [event["id"]?.string ?? ""] }
        #expect(ids == ["evdev:\(directory)/other"])
    }
}
