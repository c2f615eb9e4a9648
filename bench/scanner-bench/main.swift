// `make bench-scanners`: how soon a handheld scanner's code reaches a subscriber after its terminator, for a
// keyboard-wedge scanner (a FIFO of input_event records) and a serial one (a real pty), beside the daemon's own
// floor for the same event (a socket client's `verify` to its `scan`); then a 2,000-character code typed at a
// scanner's speed, which must be read whole.
import Foundation
import Glibc
import HandheldScanner
import Harness
import JSONCore

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let usage = "usage: scanner-bench --daemon PATH [--codes N] [--key-interval-us MICROSECONDS]"
var daemonPath: String?
var codeCount = 300
var keyInterval: Int64 = 2_000
var arguments = Array(CommandLine.arguments.dropFirst())
while arguments.count >= 2 {
    let (flag, value) = (arguments[0], arguments[1])
    arguments.removeFirst(2)
    switch flag {
    case "--daemon": daemonPath = value
    case "--codes": codeCount = Int(value).map { min(max($0, 10), 100_000) } ?? codeCount
    case "--key-interval-us": keyInterval = Int64(value).map { min(max($0, 100), 100_000) } ?? keyInterval
    default: break
    }
}
guard let daemonPath, arguments.isEmpty else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}

func percentile(_ values: [Duration], _ fraction: Double) -> Duration {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

func milliseconds(_ duration: Duration) -> String {
    String(format: "%.3f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
}

func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else { throw BenchFailure("write: \(String(cString: strerror(errno)))") }
        offset += written
    }
}

/// Reads the subscriber's lines until the `scan` whose raw is `raw`; its arrival time.
func awaitScan(_ subscriber: LineClient, raw: String) throws -> ContinuousClock.Instant {
    while let line = try subscriber.readLine(timeout: .seconds(10)) {
        let now = ContinuousClock.now
        let event = try JSON.parse(line)
        if event["type"]?.stringValue == "scan", event["raw"]?.stringValue == raw { return now }
        if event["type"]?.stringValue == "read_error" { throw BenchFailure("read_error: \(line)") }
    }
    throw BenchFailure("no scan for \(raw.prefix(40))")
}

/// A short pause so that the code's body has been read before its terminator is written and timed.
func letTheBodyArrive() { usleep(2_000) }

let api = try SandboxAPI.start()
var template = Array("/tmp/scanner-bench-XXXXXX".utf8CString)
guard let made = mkdtemp(&template) else { throw BenchFailure("mkdtemp failed") }
let directory = String(cString: made)
defer { try? FileManager.default.removeItem(atPath: directory) }
let fifo = directory + "/usb-Bench-event-kbd"
guard mkfifo(fifo, 0o600) == 0 else { throw BenchFailure("mkfifo failed") }
let terminal = try PseudoTerminal()
let daemon = try ChildProcess(daemonPath, [
    "--socket", directory + "/scand.sock", "--journal", directory + "/journal", "--nfc", "none", "--camera", "none",
    "--api-base", api.baseURL.absoluteString, "--log-level", "warning",
    "--scanner", "evdev:\(fifo)", "--scanner", "serial:\(terminal.slavePath)",
])
defer {
    daemon.signal(SIGTERM)
    _ = daemon.waitForExit(timeout: .seconds(10))
    api.stop()
}
var subscriber: LineClient?
for _ in 0..<2000 where subscriber == nil {
    subscriber = try? LineClient(path: directory + "/scand.sock")
    if subscriber == nil { usleep(5_000) }
}
guard let subscriber else { throw BenchFailure("the daemon did not listen") }
try subscriber.send(#"{"cmd":"watch","events":["scan","read_error"],"id":"w"}"#)
let writer = open(fifo, O_WRONLY | O_CLOEXEC)  // returns once the daemon has the FIFO open
guard writer >= 0 else { throw BenchFailure("open the FIFO: \(String(cString: strerror(errno)))") }
// Both scanners ready (as a new client's hello says), then a first line through the serial one.
var bothReady = false
for _ in 0..<200 where !bothReady {
    let probe = try LineClient(path: directory + "/scand.sock")
    if let line = try probe.readLine(timeout: .seconds(5)), let sources = try JSON.parse(line)["sources"]?.arrayValue {
        bothReady = sources.filter { $0["state"]?.stringValue == "ready" }.count == 2
    }
    probe.close()
    if !bothReady { usleep(50_000) }
}
guard bothReady else { throw BenchFailure("the scanners did not become ready") }
try terminal.write(Array("warm-up\r".utf8))
_ = try awaitScan(subscriber, raw: "warm-up")

var typist = KeyboardTypist(layout: .us, keyInterval: 1_000)
var wedge: [Duration] = [], serial: [Duration] = [], floor: [Duration] = []
for index in 0..<codeCount {
    let code = "BENCH-HID-\(index)"
    try writeAll(writer, typist.type(code, terminator: nil).records)
    letTheBodyArrive()
    let enter = typist.key(.init(code: KeyboardTypist.enter)).records
    let start = ContinuousClock.now
    try writeAll(writer, enter)
    wedge.append(try awaitScan(subscriber, raw: code) - start)
    typist.wait(microseconds: 200_000)  // the next code is another scan, not a gap in this one

    let line = "BENCH-SERIAL-\(index)"
    try terminal.write(Array(line.utf8))
    letTheBodyArrive()
    let lineStart = ContinuousClock.now
    try terminal.write([0x0D])
    serial.append(try awaitScan(subscriber, raw: line) - lineStart)

    let manual = "BENCH-MANUAL-\(index)"
    let verifyStart = ContinuousClock.now
    try subscriber.send(#"{"cmd":"verify","raw":"\#(manual)"}"#)
    floor.append(try awaitScan(subscriber, raw: manual) - verifyStart)
}

print("scanner-bench: \(codeCount) codes each; terminator written to `scan` read by a subscriber")
let floorP99 = percentile(floor, 0.99)
for (name, values) in [("keyboard-wedge (evdev FIFO)", wedge), ("serial (pty)", serial), ("reference: verify to scan", floor)] {
    let p50 = percentile(values, 0.5), p99 = percentile(values, 0.99)
    let ratio = Double(p99.components.attoseconds + p99.components.seconds * 1_000_000_000_000_000_000)
        / Double(floorP99.components.attoseconds + floorP99.components.seconds * 1_000_000_000_000_000_000)
    print("  \(name): p50 \(milliseconds(p50)), p99 \(milliseconds(p99)), max \(milliseconds(values.max()!)); p99 \(String(format: "%.2f", ratio))x the reference")
}
let goalMet = percentile(wedge, 0.99) <= .milliseconds(1) && percentile(serial, 0.99) <= .milliseconds(1)
print("  goal p99 <= 1 ms for both scanners: \(goalMet ? "met" : "MISSED")")

// A 2,000-character code typed in real time, one key every keyInterval, as a scanner types.
let long = String((0..<2000).map { index in Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")[index % 36] })
var longTypist = KeyboardTypist(layout: .us, keyInterval: keyInterval, time: typist.time + 1_000_000)
let typingStart = ContinuousClock.now
for (offset, scalar) in long.unicodeScalars.enumerated() {
    let deadline = typingStart + .microseconds(keyInterval * Int64(offset))
    let left = deadline - ContinuousClock.now
    if left > .zero { usleep(UInt32(left.components.attoseconds / 1_000_000_000_000)) }
    try writeAll(writer, longTypist.key(longTypist.stroke(for: scalar)!).records)
}
try writeAll(writer, longTypist.key(.init(code: KeyboardTypist.enter)).records)
let arrived = try awaitScan(subscriber, raw: long)
print("  a 2,000-character code typed at one key every \(keyInterval) µs (\(milliseconds(arrived - typingStart)) in all): read whole")
close(writer)
