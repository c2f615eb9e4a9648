import Foundation
import Glibc
import Harness

/// `make bench-mqtt`: sealtrust-mqtt beside mosquitto_pub on one mosquitto, both read by mosquitto_sub.
///
/// Latency: for the bridge, from the verdict reaching a socket client to mosquitto_sub printing it;
/// for the reference, from a line written to `mosquitto_pub -l` to mosquitto_sub printing it (the broker's
/// own round trip through its own tools). Drain: a backlog of 10,000 events published by a bridge started
/// on it, beside the same 10,000 lines piped into `mosquitto_pub -l`, each until mosquitto_sub printed the last.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func waitFor(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw BenchFailure("timed out: \(what)") }
        usleep(200)
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

let samples = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 500 : 500
let backlogScans = 5_000
let directory = try makeScratchDirectory("mqtt-bench", in: memoryBackedFolder)
defer { try? FileManager.default.removeItem(atPath: directory) }
let port = try freeLoopbackPort()
try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n"
    .write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
let broker = try ChildProcess("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"], output: .file(directory + "/mosquitto.log"))
defer { broker.stop() }
let socketPath = directory + "/scand.sock"
let daemon = try ScanDaemon(api: nil, station: "bench", logLevel: "warning", directory: directory).waitUntilListening(timeout: .seconds(60))
defer { daemon.kill() }
let brokerArguments = ["-h", "127.0.0.1", "-p", String(port)]
let subscriber = try LineTap("/usr/bin/mosquitto_sub", brokerArguments + ["-q", "1", "-t", "sealtrust/+/event/verdict", "-t", "sealtrust/+/event/scan", "-t", "reference/#"])
defer { subscriber.stop() }
let stateDirectory = directory + "/state"
try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
func startBridge() throws -> ChildProcess {
    try ChildProcess(builtProduct("sealtrust-mqtt"), ["--socket", socketPath, "--url", "mqtt://127.0.0.1:\(port)", "--state-dir", stateDirectory],
                     output: .file(directory + "/bridge.log"))
}

// The reference round trip: mosquitto_pub -l → broker → mosquitto_sub.
let publisher = try LineTap("/usr/bin/mosquitto_pub", brokerArguments + ["-q", "1", "-t", "reference/latency", "-l"], takesInput: true)
try waitFor("mosquitto_sub receives") {
    publisher.send("warm-up")
    usleep(20_000)
    return subscriber.arrival(of: "warm-up", since: 0) != nil
}
var reference: [Double] = []
for index in 0..<samples {
    let marker = "reference-\(index)-end"
    let first = subscriber.count
    let sent = ContinuousClock.now
    publisher.send(#"{"type":"verdict","seq":0,"request_id":"\#(marker)","padding":"\#(String(repeating: "x", count: 200))"}"#)
    try waitFor(marker) { subscriber.arrival(of: marker, since: first) != nil }
    reference.append(milliseconds(subscriber.arrival(of: marker, since: first)! - sent))
    usleep(5_000)
}

// The bridge: verdict on the socket → sealtrust-mqtt → broker → mosquitto_sub.
var bridge = try startBridge()
let client = try LineClient(path: socketPath)
try client.send(#"{"cmd":"verify","id":"bridge-warm-up","raw":"FOREIGN-warm-up"}"#)
try waitFor("the bridge publishes") { subscriber.arrival(of: "bridge-warm-up", since: 0) != nil }
var bridged: [Double] = []
for index in 0..<samples {
    let marker = "bridge-\(index)-end"
    let first = subscriber.count
    try client.send(#"{"cmd":"verify","id":"\#(marker)","raw":"FOREIGN-\#(index)"}"#)
    var verdictAt: ContinuousClock.Instant?
    while verdictAt == nil {
        guard let line = try client.readLine(timeout: .seconds(60)) else { throw BenchFailure("no verdict for \(marker)") }
        if line.hasPrefix(#"{"type":"verdict""#) && line.contains(marker) { verdictAt = ContinuousClock.now }
    }
    let verdict = { subscriber.arrival(of: "\"request_id\":\"\(marker)\"", since: first, alsoContaining: #"{"type":"verdict""#) }
    try waitFor(marker) { verdict() != nil }
    let published = verdict()!
    bridged.append(milliseconds(published - verdictAt!))
    usleep(5_000)
}

// Drain: the bridge stopped, a backlog of 10,000 events, the bridge started again.
bridge.stop()
let backlog = try LineClient(path: socketPath)
try backlog.send(#"{"cmd":"watch","events":[]}"#)
var lines: [String] = []
for index in 0..<backlogScans {
    try backlog.send(#"{"cmd":"verify","id":"backlog-\#(index)","raw":"FOREIGN-backlog-\#(index)"}"#)
}
while lines.count < 2 * backlogScans {
    guard let line = try backlog.readLine(timeout: .seconds(60)) else { throw BenchFailure("the backlog's events stopped coming") }
    if line.hasPrefix(#"{"type":"scan""#) || line.hasPrefix(#"{"type":"verdict""#) { lines.append(line) }
}
let lastMarker = "backlog-\(backlogScans - 1)\""
let beforeDrain = subscriber.count
let drainStart = ContinuousClock.now
bridge = try startBridge()
try waitFor("the backlog drains", timeout: .seconds(120)) {
    subscriber.count >= beforeDrain + 2 * backlogScans && subscriber.lastLine()?.text.contains(lastMarker) == true
}
let bridgeDrain = milliseconds(subscriber.lastLine()!.at - drainStart)
bridge.stop()

let referenceDrainPublisher = try LineTap("/usr/bin/mosquitto_pub", brokerArguments + ["-q", "1", "-t", "reference/drain", "-l"], takesInput: true)
let beforeReference = subscriber.count
let referenceStart = ContinuousClock.now
referenceDrainPublisher.input?.write(Data(lines.map { $0 + "\n" }.joined().utf8))
try waitFor("the reference drains", timeout: .seconds(120)) { subscriber.count >= beforeReference + lines.count }
let referenceDrain = milliseconds(subscriber.lastLine()!.at - referenceStart)
referenceDrainPublisher.stop()
publisher.stop()

func format(_ value: Double) -> String { String(format: "%.3f", value) }
let referenceP99 = percentile(reference, 0.99)
let bridgeP99 = percentile(bridged, 0.99)
print("sealtrust-mqtt beside mosquitto_pub, one mosquitto on loopback, read by mosquitto_sub (QoS 1), \(samples) samples each")
print("latency to the subscriber (ms)        p50      p99")
print("  mosquitto_pub -l (reference)   \(format(percentile(reference, 0.5)))    \(format(referenceP99))")
print("  verdict → sealtrust-mqtt       \(format(percentile(bridged, 0.5)))    \(format(bridgeP99))")
print("  bridge p99 over the broker's own round trip: \(format(bridgeP99 - referenceP99)) ms (goal ≤ 2 ms)")
let bridgeRate = Double(2 * backlogScans) / (bridgeDrain / 1000)
let referenceRate = Double(lines.count) / (referenceDrain / 1000)
print("drain of a 10,000-event backlog        time     events/s")
print("  mosquitto_pub -l (reference)   \(format(referenceDrain / 1000)) s  \(Int(referenceRate))")
print("  sealtrust-mqtt (from start)    \(format(bridgeDrain / 1000)) s  \(Int(bridgeRate))  (goal ≥ 5,000; \(format(bridgeRate / referenceRate))× the reference)")
