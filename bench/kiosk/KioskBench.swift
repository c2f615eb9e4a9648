// `make bench-kiosk`: from a verdict to the kiosk page showing it, measured through the DevTools protocol.
//
// Each verdict's arrival is timed three times on the machine's real-time clock:
//   - at a plain client of the daemon's socket (the moment the verdict exists for anyone: the zero);
//   - at a plain client of the bridge's /events (the reference: the bridge's own share, no browser);
//   - on the page, when it has put the verdict in #verdict (its `kiosk:shown` event, read over DevTools).
// Goal: the page within 50 ms of the socket at p99.
//
//   kiosk-bench [--verdicts 200] [--gap-ms 40]
//
// The codes are foreign ones (not_sealtrust): no API call, so the daemon answers at once and only the
// path from the socket to the screen is measured.
import Foundation
import Glibc
import KioskHarness
import JSONCore
import StationClient
import StationWire
import Synchronization

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

/// Milliseconds since the epoch on CLOCK_REALTIME: the clock the browser's performance.timeOrigin is on.
func wallMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

func formatted(_ milliseconds: Double) -> String { String(format: "%.1f ms", milliseconds) }

var verdicts = 200
var gapMilliseconds = 40
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
        print("usage: kiosk-bench [--verdicts N] [--gap-ms N]")
        exit(2)
    }
    switch flag {
    case "--verdicts": verdicts = value
    case "--gap-ms": gapMilliseconds = value
    default:
        print("usage: kiosk-bench [--verdicts N] [--gap-ms N]")
        exit(2)
    }
}


/// One run; the station, the browser and their processes end with it.
func measure(verdicts: Int, gapMilliseconds: Int) async throws -> Int32 {
    let atSocket = Mutex<[String: Double]>([:])
    let atStream = Mutex<[String: Double]>([:])
    let rig = try StationRig(hold: 30)
    let browser = try Chromium()
    let page = try await browser.open(rig.pageURL)
    _ = try await page.waitForOutcome("idle")
    try await page.evaluate("""
        window.shownAt = {};
        document.addEventListener('kiosk:shown', (event) => { if (event.detail.seq) window.shownAt[event.detail.seq] = event.detail.at; });
        true
        """)

    // The reference: a plain SSE client of the bridge, on a thread of its own (its reads block).
    let streamPort = rig.kiosk.port
    let streamReady = Atomic<Bool>(false)
    Thread {
        guard let stream = try? HTTPProbe(port: streamPort), stream.get("/events"), stream.readHead()?.status == 200 else { return }
        streamReady.store(true, ordering: .releasing)
        while let event = stream.nextEvent(timeout: .seconds(60)) {
            let now = wallMilliseconds()
            if event.name == "verdict", let id = event.id { atStream.withLock { $0[id] = now } }
        }
    }.start()
    while !streamReady.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }

    // The zero: a plain subscriber of the daemon's socket.
    let watcher = try await rig.connect()
    let watching = Task {
        while let message = await watcher.next() {
            let now = wallMilliseconds()
            if message.type == .event(.verdict), let seq = message.seq { atSocket.withLock { $0[String(seq)] = now } }
        }
    }

    let client = try await rig.connect()
    var seqs: [String] = []
    for index in 0..<verdicts {
        let (_, verdict) = try await verify("https://id.gs1.org/01/0950600013\(String(format: "%04d", index))", on: client, id: "bench-\(index)")
        guard let seq = verdict["seq"]?.integerValue else { throw BenchFailure(description: "a verdict without seq") }
        seqs.append(String(seq))
        try await Task.sleep(for: .milliseconds(gapMilliseconds))
    }

    // Every verdict shown and timed everywhere, or the run says what is missing.
    let deadline = ContinuousClock.now + .seconds(20)
    var shown: [String: Double] = [:]
    repeat {
        let answer = try await page.evaluate("JSON.stringify(window.shownAt)")
        let parsed = try JSON.parse(answer.stringValue ?? "{}")
        shown = Dictionary(uniqueKeysWithValues: (parsed.objectValue ?? []).compactMap { key, value -> (String, Double)? in
            switch value {
            case .double(let at): (key, at)
            case .int(let at): (key, Double(at))
            default: nil
            }
        })
        let (streamSoFar, socketSoFar) = (atStream.withLock { $0 }, atSocket.withLock { $0 })
        if seqs.allSatisfy({ seq in shown[seq] != nil && streamSoFar[seq] != nil && socketSoFar[seq] != nil }) { break }
        try await Task.sleep(for: .milliseconds(50))
    } while ContinuousClock.now < deadline
    watching.cancel()

    let socketTimes = atSocket.withLock { $0 }
    let streamTimes = atStream.withLock { $0 }
    let complete = seqs.filter { shown[$0] != nil && streamTimes[$0] != nil && socketTimes[$0] != nil }
    guard complete.count == seqs.count else {
        print("kiosk-bench: \(seqs.count - complete.count) of \(seqs.count) verdicts were not seen everywhere")
        return 1
    }
    let streamLatency = complete.map { streamTimes[$0]! - socketTimes[$0]! }
    let pageLatency = complete.map { shown[$0]! - socketTimes[$0]! }
    let p99 = percentile(pageLatency, 0.99)
    print("kiosk-bench: \(complete.count) verdicts, one every \(gapMilliseconds) ms; zero = the verdict at a client of the daemon's socket")
    print("  reference, a plain client of the bridge's /events: p50 \(formatted(percentile(streamLatency, 0.5)))  p99 \(formatted(percentile(streamLatency, 0.99)))  max \(formatted(streamLatency.max()!))")
    print("  the page in Chromium, verdict in #verdict (DevTools): p50 \(formatted(percentile(pageLatency, 0.5)))  p99 \(formatted(p99))  max \(formatted(pageLatency.max()!))")
    print("  page / reference: p50 \(String(format: "%.2f", percentile(pageLatency, 0.5) / max(percentile(streamLatency, 0.5), 0.001)))×  p99 \(String(format: "%.2f", p99 / max(percentile(streamLatency, 0.99), 0.001)))×")
    print("  goal: the page within 50 ms at p99: \(p99 <= 50 ? "met" : "MISSED")")
    watcher.close()
    client.close()
    return p99 <= 50 ? 0 : 1
}

exit(try await measure(verdicts: verdicts, gapMilliseconds: gapMilliseconds))
