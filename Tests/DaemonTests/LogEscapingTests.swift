import Foundation
import JSONCore
import Testing
import TestSupport

/// An API's words reach the daemon's log and systemd's status line with their control characters escaped: a detail
/// cannot forge a log line, colour an operator's terminal, or add an assignment to the notify message.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct LogEscapingTests {
    @Test func controlCharactersInAnAPIDetailAreEscapedInTheLogAndTheStatusLine() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let forged = "db \u{1B}[31mdown\r\nsealtrust-scand: error: forged\nREADY=1\u{07}\u{9B}"
        try await api.fault(path: "/scans/verify", status: 500, body: JSON.object([("detail", .string(forged))]).encoded(),
                            count: 1, contentType: "application/json")
        let listener = try NotifyListener(form: .path)
        let daemon = try ScanDaemon(api: api, notify: listener).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()

        let verdict = try client.verify(try mintChipURL("authentic", counter: 10), id: "forged").verdict
        #expect(verdict["outcome"]?.string == "failure")
        #expect(verdict["error"]?["detail"]?.string == forged, "the event keeps the API's words; JSON escapes them")

        let escaped = "db \\x1b[31mdown\\x0d\\x0asealtrust-scand: error: forged\\x0aREADY=1\\x07\\u009b"
        let log = daemon.process.standardError
        let warning = log.split(separator: "\n").first { $0.contains("warning: verdict") }
        #expect(warning?.contains(escaped) == true, "one warning line with the detail escaped: \(log.debugDescription)")
        #expect(!log.contains("\u{1B}") && !log.contains("\r") && !log.contains("\u{07}") && !log.contains("\u{9B}"))
        #expect(!log.contains("\nsealtrust-scand: error: forged"), "no forged line")

        var status: String?
        var forgedReady = false
        let deadline = ContinuousClock.now + .seconds(10)
        while status?.contains("last API error") != true, ContinuousClock.now < deadline,
              let message = listener.receive(timeout: .seconds(1)) {
            if let text = message.assignments["STATUS"] { status = text }
            if message.assignments["STATUS"]?.contains("last API error") == true, message.assignments["READY"] != nil { forgedReady = true }
        }
        #expect(status?.contains(escaped) == true, "STATUS= shows the detail escaped, on one line: \(status ?? "none")")
        #expect(!forgedReady, "the detail adds no assignment to the notify message")
    }

    /// A right-to-left override in a scanned string reversed what `scanctl` showed after it on the operator's terminal:
    /// its lines (here `replay`'s, which `watch` shares) print every bidirectional control as an escape.
    @Test func scanctlShowsBidirectionalControlsAsEscapes() throws {
        let daemon = try ScanDaemon(api: nil).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let raw = "WIFI:S:guest\u{202E}exe.fdp\u{2066};;"
        let verify = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "verify", raw])
        #expect(verify.output.contains("verdict manual"), "\(verify)")
        let replay = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "replay", "--since", "0", "--no-follow"])
        #expect(replay.output.contains(#"WIFI:S:guest\u202eexe.fdp\u2066;;"#), "\(replay)")
        for run in [verify, replay] {
            #expect(!run.output.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        }
    }
}
