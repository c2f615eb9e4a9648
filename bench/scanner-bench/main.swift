// `make bench-scanners`: how soon a handheld scanner's code reaches a subscriber after its terminator, for a
// keyboard-wedge scanner (a FIFO of input_event records) and a serial one (a real pty), beside the daemon's own
// floor for the same event (a socket client's `verify` to its `scan`); then a 2,000-character code typed at a
// scanner's speed, which must be read whole.
//
// Every event is fdatasync'ed into the journal before it is published, so the disk's own sync time is part of
// each figure. The same run therefore measures that sync alone (a 300-byte append and fdatasync, as the journal
// does), and runs the daemon a second time with its journal on /dev/shm (tmpfs, where fdatasync costs nothing):
// that line is what the daemon's code costs, the first is what the station sees on this disk.
import Foundation
import Glibc
import HandheldScanner
import Harness
import JSONCore

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let usage = "usage: scanner-bench --daemon PATH [--codes N] [--syncs N] [--key-interval-us MICROSECONDS]"
var daemonPath: String?
var codeCount = 300
var syncCount = 500
var keyInterval: Int64 = 2_000
var arguments = Array(CommandLine.arguments.dropFirst())
while arguments.count >= 2 {
    let (flag, value) = (arguments[0], arguments[1])
    arguments.removeFirst(2)
    switch flag {
    case "--daemon": daemonPath = value
    case "--codes": codeCount = Int(value).map { min(max($0, 10), 100_000) } ?? codeCount
    case "--syncs": syncCount = Int(value).map { min(max($0, 10), 100_000) } ?? syncCount
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

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func milliseconds(_ duration: Duration) -> String {
    String(format: "%.3f ms", seconds(duration) * 1000)
}

func summary(_ values: [Duration]) -> String {
    "p50 \(milliseconds(percentile(values, 0.5))), p99 \(milliseconds(percentile(values, 0.99))), max \(milliseconds(values.max()!))"
}

func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else { throw BenchFailure("write: \(String(cString: strerror(errno)))") }
        offset += written
    }
}

func makeDirectory(under parent: String) throws -> String {
    var template = Array("\(parent)/scanner-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw BenchFailure("mkdtemp in \(parent): \(String(cString: strerror(errno)))") }
    return String(cString: made)
}

/// What the journal pays per event on the filesystem that holds `directory`: a 300-byte append, then fdatasync.
func syncTimes(in directory: String, count: Int) throws -> [Duration] {
    let path = directory + "/sync-probe"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BenchFailure("open \(path): \(String(cString: strerror(errno)))") }
    defer {
        close(descriptor)
        unlink(path)
    }
    let line = Array(repeating: UInt8(ascii: "x"), count: 299) + [0x0A]
    var times: [Duration] = []
    for _ in 0..<count {
        let start = ContinuousClock.now
        try writeAll(descriptor, line)
        guard fdatasync(descriptor) == 0 else { throw BenchFailure("fdatasync: \(String(cString: strerror(errno)))") }
        times.append(ContinuousClock.now - start)
    }
    return times
}

/// The kernel's own pty path, which a serial scanner's code takes before the daemon sees it: a byte written at the
/// master until poll(2) and read(2) return it at the raw slave (the tty layer hands it over through a work queue).
func ptyTimes(count: Int) throws -> [Duration] {
    let terminal = try PseudoTerminal()
    defer { terminal.close() }
    let slave = open(terminal.slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard slave >= 0 else { throw BenchFailure("open \(terminal.slavePath): \(String(cString: strerror(errno)))") }
    defer { close(slave) }
    var settings = termios()
    tcgetattr(slave, &settings)
    cfmakeraw(&settings)
    tcsetattr(slave, TCSANOW, &settings)
    var times: [Duration] = []
    var byte: UInt8 = 0
    for _ in 0..<count {
        let start = ContinuousClock.now
        try terminal.write([0x0D])
        var ready = pollfd(fd: slave, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5_000) == 1, read(slave, &byte, 1) == 1 else { throw BenchFailure("the pty did not pass a byte") }
        times.append(ContinuousClock.now - start)
    }
    return times
}

/// Reads the subscriber's lines until the `scan` whose raw is `raw`; its arrival time and its scan id.
func awaitScan(_ subscriber: LineClient, raw: String) throws -> (at: ContinuousClock.Instant, scanID: String) {
    while let line = try subscriber.readLine(timeout: .seconds(10)) {
        let now = ContinuousClock.now
        let event = try JSON.parse(line)
        if event["type"]?.stringValue == "scan", event["raw"]?.stringValue == raw {
            return (now, event["scan_id"]?.stringValue ?? "")
        }
        if event["type"]?.stringValue == "read_error" { throw BenchFailure("read_error: \(line)") }
    }
    throw BenchFailure("no scan for \(raw.prefix(40))")
}

/// Reads until the verdict for `scanID`: a scanner's codes come seconds apart, so each code is timed on a daemon
/// that has finished with the one before (its verdict's journal write included).
func awaitVerdict(_ subscriber: LineClient, scanID: String) throws {
    while let line = try subscriber.readLine(timeout: .seconds(10)) {
        let event = try JSON.parse(line)
        if event["type"]?.stringValue == "verdict", event["scan_id"]?.stringValue == scanID { return }
    }
    throw BenchFailure("no verdict for \(scanID)")
}

/// A short pause so that the code's body has been read before its terminator is written and timed.
func letTheBodyArrive() { usleep(2_000) }

/// One daemon with both scanners, its journal in `journalParent`.
final class Station {
    let directory: String
    let journal: String
    let daemon: ChildProcess
    let subscriber: LineClient
    let terminal: PseudoTerminal
    let writer: Int32
    var typist = KeyboardTypist(layout: .us, keyInterval: 1_000)

    init(api: SandboxAPI, daemonPath: String, journalParent: String) throws {
        let directory = try makeDirectory(under: "/tmp")
        let journal = try makeDirectory(under: journalParent)
        let fifo = directory + "/usb-Bench-event-kbd"
        guard mkfifo(fifo, 0o600) == 0 else { throw BenchFailure("mkfifo failed") }
        let terminal = try PseudoTerminal()
        // Through setpriv: a daemon this benchmark leaves behind when it dies keeps watching its port's path, opens
        // the next pty given that number and takes its lines (seen: a stray bench daemon read other runs' lines).
        let daemon = try ChildProcess("/usr/bin/setpriv", ["--pdeathsig", "KILL", "--", daemonPath,
            "--socket", directory + "/scand.sock", "--journal", journal + "/journal", "--nfc", "none", "--camera", "none",
            "--api-base", api.baseURL.absoluteString, "--log-level", "warning",
            "--scanner", "evdev:\(fifo)", "--scanner", "serial:\(terminal.slavePath)",
        ])
        var connected: LineClient?
        for _ in 0..<2000 where connected == nil {
            connected = try? LineClient(path: directory + "/scand.sock")
            if connected == nil { usleep(5_000) }
        }
        guard let subscriber = connected else { throw BenchFailure("the daemon did not listen") }
        try subscriber.send(#"{"cmd":"watch","events":["scan","verdict","read_error"],"id":"w"}"#)
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
        try awaitVerdict(subscriber, scanID: try awaitScan(subscriber, raw: "warm-up").scanID)
        self.directory = directory
        self.journal = journal
        self.daemon = daemon
        self.subscriber = subscriber
        self.terminal = terminal
        self.writer = writer
    }

    /// Enter written to the keyboard-wedge code's `scan` read.
    func wedge(_ code: String) throws -> Duration {
        try writeAll(writer, typist.type(code, terminator: nil).records)
        letTheBodyArrive()
        let enter = typist.key(.init(code: KeyboardTypist.enter)).records
        let start = ContinuousClock.now
        try writeAll(writer, enter)
        let scan = try awaitScan(subscriber, raw: code)
        try awaitVerdict(subscriber, scanID: scan.scanID)
        typist.wait(microseconds: 200_000)  // the next code is another scan, not a gap in this one
        return scan.at - start
    }

    /// CR written to the serial line's `scan` read.
    func serial(_ line: String) throws -> Duration {
        try terminal.write(Array(line.utf8))
        letTheBodyArrive()
        let start = ContinuousClock.now
        try terminal.write([0x0D])
        let scan = try awaitScan(subscriber, raw: line)
        try awaitVerdict(subscriber, scanID: scan.scanID)
        return scan.at - start
    }

    /// A `verify` sent to its `scan` read: the daemon's floor for the same event.
    func verify(_ raw: String) throws -> Duration {
        let start = ContinuousClock.now
        try subscriber.send(#"{"cmd":"verify","raw":"\#(raw)"}"#)
        let scan = try awaitScan(subscriber, raw: raw)
        try awaitVerdict(subscriber, scanID: scan.scanID)
        return scan.at - start
    }

    /// A 2,000-character code typed in real time, one key every `keyInterval`, as a scanner types; its time in all.
    func typeLongCode(keyInterval: Int64) throws -> Duration {
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
        return try awaitScan(subscriber, raw: long).at - typingStart
    }

    func stop() {
        close(writer)
        subscriber.close()
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit(timeout: .seconds(10))
        terminal.close()
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: journal)
    }
}

struct Figures {
    var wedge: [Duration] = []
    var serial: [Duration] = []
    var floor: [Duration] = []

    var goalMet: Bool { percentile(wedge, 0.99) <= .milliseconds(1) && percentile(serial, 0.99) <= .milliseconds(1) }

    func print(_ heading: String) {
        Swift.print("  \(heading)")
        let floorP99 = seconds(percentile(floor, 0.99))
        for (name, values) in [("keyboard-wedge (evdev FIFO)", wedge), ("serial (pty)", serial), ("reference: verify to scan", floor)] {
            let ratio = seconds(percentile(values, 0.99)) / floorP99
            Swift.print("    \(name): \(summary(values)); p99 \(String(format: "%.2f", ratio))x the reference")
        }
    }
}

/// `codeCount` codes through each scanner and as many `verify`s, interleaved.
func measure(_ station: Station, tag: String, count: Int) throws -> Figures {
    var figures = Figures()
    for index in 0..<count {
        figures.wedge.append(try station.wedge("BENCH-\(tag)-HID-\(index)"))
        figures.serial.append(try station.serial("BENCH-\(tag)-SERIAL-\(index)"))
        figures.floor.append(try station.verify("BENCH-\(tag)-MANUAL-\(index)"))
    }
    return figures
}

/// Both runs, then the figures; a failure stops the daemons and says why.
/// One daemon at a time: the disk run (with the disk's own sync times and the long code), then the tmpfs one.
@MainActor func benchmark(api: SandboxAPI) throws {
    let ptys = try ptyTimes(count: syncCount)
    let (syncs, onDisk, longCode) = try {
        let disk = try Station(api: api, daemonPath: daemonPath, journalParent: "/tmp")
        defer { disk.stop() }
        return (try syncTimes(in: disk.journal, count: syncCount), try measure(disk, tag: "DISK", count: codeCount),
                try disk.typeLongCode(keyInterval: keyInterval))
    }()
    let onTmpfs = try {
        let memory = try Station(api: api, daemonPath: daemonPath, journalParent: "/dev/shm")
        defer { memory.stop() }
        return try measure(memory, tag: "TMPFS", count: codeCount)
    }()

    print("scanner-bench: \(codeCount) codes each; terminator written to `scan` read by a subscriber (each code after the last one's verdict)")
    print("  the disk alone (/tmp): a 300-byte append and fdatasync, \(syncCount) times: \(summary(syncs))")
    print("  the pty alone: a byte written at the master to its read at the raw slave, \(syncCount) times: \(summary(ptys))")
    onDisk.print("journal on disk (/tmp), as a station runs:")
    onTmpfs.print("journal on /dev/shm (tmpfs, fdatasync free): the daemon's own cost")
    print("  goal p99 <= 1 ms for both scanners: journal on disk \(onDisk.goalMet ? "met" : "MISSED"), journal on tmpfs \(onTmpfs.goalMet ? "met" : "MISSED")")
    print("  a 2,000-character code typed at one key every \(keyInterval) µs (\(milliseconds(longCode)) in all): read whole")
}

let api = try SandboxAPI.start()
do {
    try benchmark(api: api)
    api.stop()
} catch {
    api.stop()
    FileHandle.standardError.write(Data("scanner-bench: \(error)\n".utf8))
    exit(1)
}
