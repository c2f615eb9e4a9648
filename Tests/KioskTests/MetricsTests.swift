import Foundation
import KioskHarness
import JSONCore
import StationClient
import StationWire
import Testing
import TestSupport

/// `/metrics` and `/healthz`: the daemon's `status` in Prometheus text format.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct MetricsTests {
    /// The samples of an exposition, `name{labels}` to value; throws on a line the format does not allow.
    static func samples(_ text: String) throws -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { throw BrowserError("no value in \(line)") }
            let key = String(line[..<space])
            let valueText = line[line.index(after: space)...]
            guard let value = valueText == "+Inf" ? Double.infinity : Double(valueText) else { throw BrowserError("bad value in \(line)") }
            let name = key.prefix { $0 != "{" }
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }), !name.isEmpty else {
                throw BrowserError("bad metric name in \(line)")
            }
            samples[key] = value
        }
        return samples
    }

    @Test func theCountersMatchStatusAfterAMixedRunAndPassPromtool() async throws {
        let rig = try StationRig()
        let station = try await rig.connect()
        defer { station.close() }
        let authentic = try mintChipURL("authentic", counter: 30)
        _ = try await verify(authentic, on: station, id: "1")
        _ = try await verify(authentic, on: station, id: "2")
        _ = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "3")
        _ = try await verify("https://id.gs1.org/01/09506000134352", on: station, id: "4")
        try await rig.api.fault(path: "/scans/verify", status: 503, count: 1)
        _ = try await verify(try mintChipURL("spare-b", counter: 30), on: station, id: "5")
        try rig.showUnreadableCode()

        // The daemon's own account, once the read error is in.
        try station.send(ClientCommand(id: "w", action: .watch([.readError])))
        while let message = await station.next(), message.type != .event(.readError) {}
        try station.send(ClientCommand(id: "s", action: .status))
        var status: JSON?
        while status == nil, let message = await station.next() {
            if message.type == .status { status = message.json }
        }
        let counters = try #require(status?["counters"])

        // Each scrape asks the daemon's status; the read error's event may still be on its way to the bridge.
        var text = ""
        var samples: [String: Double] = [:]
        let deadline = ContinuousClock.now + .seconds(15)
        repeat {
            let answer = try httpGet(port: rig.kiosk.port, path: "/metrics")
            #expect(answer.status == 200 && answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            text = answer.body
            samples = try Self.samples(text)
            if samples["sealtrust_verdicts_total{outcome=\"failure\"}"] == 1 && samples["sealtrust_read_errors_total{reason=\"invalid_utf8\"}"] == 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline

        for (outcome, count) in counters["verdicts"]?.objectValue ?? [] {
            #expect(samples["sealtrust_verdicts_total{outcome=\"\(outcome)\"}"] == Double(count.integerValue ?? -1), "\(outcome)\n\(text)")
        }
        #expect(samples["sealtrust_verdicts_total{outcome=\"authentic\"}"] == 1)
        #expect(samples["sealtrust_verdicts_total{outcome=\"replay\"}"] == 1)
        let scans = samples.filter { $0.key.hasPrefix("sealtrust_scans_total{") }.values.reduce(0, +)
        #expect(scans == Double(counters["scans"]?.integerValue ?? -1), "\(text)")
        #expect(samples["sealtrust_scans_total{medium=\"manual\"}"] == 5)
        #expect(samples["sealtrust_api_errors_total"] == Double(counters["api_errors"]?.integerValue ?? -1))
        #expect(samples["sealtrust_read_errors_total{reason=\"invalid_utf8\"}"] == 1)
        #expect(samples["sealtrust_verdict_latency_seconds_count"] == 5)
        #expect(samples["sealtrust_verdict_latency_seconds_bucket{le=\"+Inf\"}"] == 5)
        #expect(samples["sealtrust_up"] == 1)
        #expect(samples["sealtrust_build_info{version=\"0.1.0\"}"] == 1)
        #expect((samples["sealtrust_clients"] ?? 0) >= 2, "this test's client and the bridge")
        #expect((samples["sealtrust_journal_last_seq"] ?? 0) >= 11)
        #expect(samples.keys.contains { $0.hasPrefix("sealtrust_source_up{id=\"y4m:") })

        let promtool = Process()
        promtool.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        promtool.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        promtool.standardInput = input
        promtool.standardOutput = output
        promtool.standardError = output
        try promtool.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        promtool.waitUntilExit()
        #expect(promtool.terminationStatus == 0, "promtool check metrics: \(said)")

        let health = try httpGet(port: rig.kiosk.port, path: "/healthz")
        #expect(health.status == 200)
        let body = try JSON.parse(health.body.trimmingCharacters(in: .newlines))
        #expect(body["status"]?.stringValue == "ok" && body["daemon"]?.stringValue == "reachable")
        #expect(body["sources"]?.arrayValue?.isEmpty == false)
    }

    /// Between a bridge and the daemon's socket: prints `ASKED` and each line the bridge sends, what it asked the daemon.
    static let relay = #"""
    import socket, sys, threading
    listen_path, daemon_path = sys.argv[1], sys.argv[2]
    server = socket.socket(socket.AF_UNIX)
    server.bind(listen_path)
    server.listen(16)
    print("LISTENING", flush=True)
    said = threading.Lock()
    def carry(source, target, asked):
        pending = b""
        try:
            while data := source.recv(65536):
                target.sendall(data)
                if asked:
                    *lines, pending = (pending + data).split(b"\n")
                    with said:
                        for line in lines:
                            print("ASKED " + line.decode("utf-8", "replace"), flush=True)
        except OSError:
            pass
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    while True:
        client, _ = server.accept()
        daemon = socket.socket(socket.AF_UNIX)
        try:
            daemon.connect(daemon_path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=carry, args=(client, daemon, True), daemon=True).start()
        threading.Thread(target=carry, args=(daemon, client, False), daemon=True).start()
    """#

    /// A station that reads 20 codes is not asked 20 `status`es: one scrape is one question, and its numbers are the
    /// daemon's at that moment, the verdicts' latencies included.
    @Test func twentyVerdictsCostNoStatusAndAScrapeCostsOne() async throws {
        let rig = try StationRig()
        let station = try await rig.connect()
        defer { station.close() }
        let relayPath = rig.directory + "/relay.sock"
        let relay = try ChildProcess("/usr/bin/python3", ["-c", Self.relay, relayPath, rig.socketPath])
        defer { _ = relay.stop() }
        _ = try relay.waitForLineBlocking(timeout: .seconds(10)) { $0 == "LISTENING" }
        let kiosk = try KioskProcess(socketPath: relayPath)
        defer { kiosk.stop() }
        _ = try await Self.metrics(port: kiosk.port) { $0["sealtrust_up"] == 1 }
        let statusesAsked = { relay.lines.filter { $0.hasPrefix("ASKED ") && $0.contains(#""cmd":"status""#) }.count }
        let before = statusesAsked()
        let started = ContinuousClock.now

        for index in 0..<20 { _ = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "v\(index)") }
        let text = try httpGet(port: kiosk.port, path: "/metrics").body
        let samples = try Self.samples(text)
        let asked = statusesAsked() - before
        // The bridge's own status every 5 s goes on; the scrape adds one.
        let allowed = 1 + Int(((ContinuousClock.now - started) / .seconds(5)).rounded(.up))
        #expect(asked >= 1 && asked <= allowed, "\(asked) status commands for 20 verdicts and one scrape (at most \(allowed))")
        #expect(samples["sealtrust_scans_total{medium=\"manual\"}"] == 20, "\(text)")
        #expect(samples["sealtrust_verdicts_total{outcome=\"identified\"}"] == 20, "\(text)")
        #expect(samples["sealtrust_verdict_latency_seconds_count"] == 20, "\(text)")
        #expect((samples["sealtrust_journal_last_seq"] ?? 0) >= 40)
    }

    /// `/metrics` until `condition` holds of its samples, or the deadline.
    static func metrics(port: Int, until condition: ([String: Double]) -> Bool) async throws -> [String: Double] {
        let deadline = ContinuousClock.now + .seconds(15)
        var samples: [String: Double] = [:]
        repeat {
            samples = try Self.samples(try httpGet(port: port, path: "/metrics").body)
            if condition(samples) { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        return samples
    }

    @Test func aBridgeStartedLaterCountsAsTheDaemonAndSaysNothingOfADaemonThatIsDown() async throws {
        let rig = try StationRig()
        let station = try await rig.connect()
        defer { station.close() }
        _ = try await verify("https://sealtrust.io/p/SN-00042", on: station, id: "1")
        _ = try await verify("https://id.gs1.org/01/09506000134352", on: station, id: "2")
        try station.send(ClientCommand(id: "w", action: .watch([.readError])))
        try rig.showUnreadableCode()
        while let message = await station.next(), message.type != .event(.readError) {}

        // A bridge started after all that: the daemon's counts since it started, not what this bridge has seen.
        let late = try KioskProcess(socketPath: rig.socketPath)
        defer { late.stop() }
        let samples = try await Self.metrics(port: late.port) { $0["sealtrust_up"] == 1 && $0["sealtrust_journal_last_seq"] != nil }
        #expect(samples["sealtrust_scans_total{medium=\"manual\"}"] == 2, "\(samples)")
        #expect(samples["sealtrust_scans_total{medium=\"qr\"}"] == 0)
        #expect(samples["sealtrust_read_errors_total{reason=\"invalid_utf8\"}"] == 1)
        #expect(samples["sealtrust_read_errors_total{reason=\"io\"}"] == 0)
        #expect(samples["sealtrust_verdicts_total{outcome=\"identified\"}"] == 1)

        // The daemon stops: only what the bridge knows of itself remains.
        rig.stopDaemon()
        let down = try await Self.metrics(port: late.port) { $0["sealtrust_up"] == 0 }
        #expect(down["sealtrust_up"] == 0)
        let daemons = ["sealtrust_clients", "sealtrust_journal_last_seq", "sealtrust_source_up", "sealtrust_scans_total",
                       "sealtrust_verdicts_total", "sealtrust_read_errors_total", "sealtrust_api_errors_total"]
        let stale = down.keys.filter { key in daemons.contains { key.hasPrefix($0) } }
        #expect(stale.isEmpty, "the daemon's numbers while it is down: \(stale.sorted())")
        #expect(down["sealtrust_build_info{version=\"0.1.0\"}"] == 1)
    }
}
