import Foundation
import Glibc
import JSONCore
import Harness
import StationClient
import StationWire

/// The station a kiosk shows: the sandbox API, the real daemon on a scratch socket and journal, and the bridge.
///
/// The daemon's camera is a Y4M path that does not exist yet: `showCode` moves a stream there, as a camera
/// would see it, which is how a test makes a read error without a reader.
public final class StationRig: @unchecked Sendable {
    public let api: SandboxAPI
    public let directory: String
    public let socketPath: String
    public let cameraPath: String
    public let language: String
    /// More options for the daemon, at each start.
    public let daemonArguments: [String]
    public private(set) var daemon: ScanDaemon
    public private(set) var kiosk: KioskProcess
    private let kioskLanguage: String?
    private let hold: Int
    private let kioskArguments: [String]
    /// The daemon's `--config`, which holds its `lang` in place of the flag: a reload may change it.
    private let configFile: String?

    /// `language`: the daemon's, and the bridge's `--lang` unless `kioskFollowsDaemon`; `journalEvents`: verdicts
    /// already in the journal when the daemon starts (seq 1 to that); `kioskArguments`, `daemonArguments`: more options
    /// for the bridge and the daemon; `languageInConfigFile`: the daemon's `lang` in a configuration file, which
    /// `reloadDaemon(language:)` changes.
    public init(language: String = "en", kioskFollowsDaemon: Bool = false, hold: Int = 8, journalEvents: Int = 0,
                kioskArguments: [String] = [], daemonArguments: [String] = [], languageInConfigFile: Bool = false) throws {
        self.daemonArguments = daemonArguments
        api = try SandboxAPI.start()
        directory = try makeScratchDirectory("kiosk-test")
        if journalEvents > 0 { try Self.writeJournal(directory + "/journal", events: journalEvents) }
        socketPath = directory + "/scand.sock"
        cameraPath = directory + "/camera.y4m"
        self.language = language
        configFile = languageInConfigFile ? directory + "/scand.conf" : nil
        if let configFile { try "lang = \(language)\n".write(toFile: configFile, atomically: true, encoding: .utf8) }
        daemon = try Self.startDaemon(api: api, directory: directory, camera: cameraPath, language: language, configFile: configFile,
                                      extra: daemonArguments)
        kioskLanguage = kioskFollowsDaemon ? nil : language
        self.hold = hold
        self.kioskArguments = kioskArguments
        kiosk = try KioskProcess(socketPath: socketPath, language: kioskLanguage, hold: hold, arguments: kioskArguments)
        try waitUntilTheBridgeIsOnline()
    }

    /// Waits for the bridge's `station` event saying it follows the daemon: a verdict journaled before would not be
    /// the bridge's to show (it starts live), so a test that scans before it opens a page waits for this first.
    public func waitUntilTheBridgeIsOnline(timeout: Duration = .seconds(20)) throws {
        let stream = try HTTPProbe(port: kiosk.port)
        guard stream.get("/events"), stream.readHead()?.status == 200 else { throw BrowserError("the bridge's /events did not answer") }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, let event = stream.nextEvent(timeout: deadline - ContinuousClock.now) {
            if event.name == "station" && event.data.contains("\"online\"") { return }
        }
        throw BrowserError("the bridge did not reach the daemon within \(timeout)")
    }

    /// One journal segment as the daemon writes it, written whole: appending 40,000 events one by one, each with
    /// its fdatasync, would take minutes.
    private static func writeJournal(_ path: String, events: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var text = ""
        for seq in 1...events {
            text += #"{"type":"verdict","seq":\#(seq),"at":"2026-12-01T12:00:00.000Z","scan_id":"journaled-\#(seq)","source":"manual","medium":"manual","outcome":"not_sealtrust","message":"This code is not a SealTrust code.","latency_ms":3}"# + "\n"
        }
        let segment = path + "/00000000000000000001.jsonl"
        try Data(text.utf8).write(to: URL(fileURLWithPath: segment))
        // On the disk before the daemon starts: its first fdatasync would otherwise flush all of it, seconds that a
        // test timing the daemon's answers would take for the daemon's.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: segment))
        try handle.synchronize()
        try handle.close()
    }

    deinit {
        kiosk.stop()
        daemon.terminate(timeout: .seconds(10))
        api.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the daemon (SIGTERM), as a station's operator or a crash would.
    public func stopDaemon() {
        daemon.terminate(timeout: .seconds(10))
    }

    /// Stops the bridge and starts it again on the same port, as an upgrade or a crash would: the pages open reconnect
    /// with their `Last-Event-ID`. `arguments`: the bridge's new options in place of the rig's (a new `--texts`, say).
    public func restartKiosk(arguments: [String]? = nil) throws {
        let port = kiosk.port
        _ = kiosk.stop()
        kiosk = try KioskProcess(socketPath: socketPath, language: kioskLanguage, hold: hold, arguments: arguments ?? kioskArguments, port: port)
        try waitUntilTheBridgeIsOnline()
    }

    /// Starts the daemon again on the same socket and journal.
    public func startDaemon() throws {
        daemon = try Self.startDaemon(api: api, directory: directory, camera: cameraPath, language: language, configFile: configFile,
                                      extra: daemonArguments)
    }

    /// Writes `lang = language` in the daemon's configuration file and reloads it (SIGHUP), as `systemctl reload` does.
    public func reloadDaemon(language: String) throws {
        guard let configFile else { throw HarnessError("the rig's daemon has its language on the command line") }
        try "lang = \(language)\n".write(toFile: configFile, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
    }

    private static func startDaemon(api: SandboxAPI, directory: String, camera: String, language: String, configFile: String?,
                                    extra: [String]) throws -> ScanDaemon {
        let languageFrom = configFile.map { ["--config", $0] } ?? ["--lang", language]
        return try ScanDaemon(api: api, camera: "y4m:\(camera)", station: "kiosk-test", logLevel: "warning",
                              extra: languageFrom + ["--latitude", "48.85", "--longitude", "2.35"] + extra, directory: directory)
            .waitUntilListening()
    }

    /// A client of the daemon's socket, `hello` read.
    public func connect() async throws -> StationConnection {
        try await StationConnection.connect(path: socketPath)
    }

    /// The page's address.
    public var pageURL: String { kiosk.base + "/" }

    /// The station's page in a headless Chromium of its own (the page holds its browser), once it shows idle.
    public func idlePage() async throws -> BrowserPage {
        let page = try await Chromium().open(pageURL)
        _ = try await page.waitForOutcome("idle")
        return page
    }

    /// Shows the camera a code that cannot be read (binary, not UTF-8): the daemon publishes a `read_error`.
    public func showUnreadableCode() throws {
        let fixtures = directory + "/fixtures"
        try runTool("/usr/bin/python3", [repositoryRoot().appendingPathComponent("tools/qrfixtures/qrfixtures.py").path, fixtures, "streams"])
        try FileManager.default.moveItem(atPath: fixtures + "/streams/binary.y4m", toPath: cameraPath)
    }
}

/// A scan and its verdict, for a `verify` sent on `connection`.
public func verify(_ raw: String, on connection: StationConnection, id: String, timeout: Duration = .seconds(20)) async throws -> (scan: JSON, verdict: JSON) {
    try connection.send(ClientCommand(id: .string(id), action: .verify(raw: raw)))
    let deadline = ContinuousClock.now + timeout
    var scan: JSON?
    while ContinuousClock.now < deadline, let message = await connection.next() {
        if message.type == .event(.scan), message.json["request_id"]?.stringValue == id {
            scan = message.json
        } else if let found = scan, message.type == .event(.verdict), message.json["scan_id"] == found["scan_id"] {
            return (found, message.json)
        }
    }
    throw BrowserError("no verdict for verify \(id)")
}

/// Where tests put what a person should look at (screenshots): .build/test-output/kiosk.
public func testOutputDirectory() -> String {
    repositoryRoot().appendingPathComponent(".build/test-output/kiosk").path
}
