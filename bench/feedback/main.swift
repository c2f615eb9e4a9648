import CPCSCLite
import Foundation
import Glibc
import Harness
import NFCReader

// `make bench-feedback`: how soon the reader's LED and buzzer follow a verdict (the spec: at most 5 ms after it is
// published). The daemon reads a virtual tag of another brand (`not_sealtrust`, no API call) with
// `--feedback auto`; the time runs from a socket subscriber reading the verdict to vtag receiving the LED and
// buzzer command (`PSEUDO FF0040…`, stamped by vtag with CLOCK_MONOTONIC), both clocks the same.
// The reference, on each tap: this process sending the same command itself with one SCardTransmit, from the
// call to its arrival at the tag, which is what pcscd and vpcd alone cost.
//
//   feedback-bench [--taps 60]

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The CLOCK_MONOTONIC nanoseconds vtag stamped on a `PSEUDO … at=NS` line.
func arrival(_ line: String) throws -> Int64 {
    guard let range = line.range(of: " at="), let nanoseconds = Int64(line[range.upperBound...]) else {
        throw BenchFailure("no at= in vtag's line \(line)")
    }
    return nanoseconds
}

/// A product built beside this benchmark.
func builtProduct(_ name: String) -> String {
    let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent(name).path
}

/// One SCardTransmit of `command` to the tag on `reader`, the connection made beforehand; when the call began.
func transmitDirectly(_ command: [UInt8], reader: String) throws -> Int64 {
    var context = SCARDCONTEXT()
    guard SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context) == SCARD_S_SUCCESS else {
        throw BenchFailure("SCardEstablishContext failed")
    }
    defer { SCardReleaseContext(context) }
    var card = SCARDHANDLE()
    var active = DWORD()
    guard SCardConnect(context, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &active)
            == SCARD_S_SUCCESS else { throw BenchFailure("SCardConnect to \(reader) failed") }
    defer { SCardDisconnect(card, DWORD(SCARD_LEAVE_CARD)) }
    var response = [UInt8](repeating: 0, count: 258)
    var length = DWORD(response.count)
    let sent = monotonicNanoseconds()
    guard SCardTransmit(card, cpcsc_pci(active), command, DWORD(command.count), nil, &response, &length) == SCARD_S_SUCCESS else {
        throw BenchFailure("SCardTransmit failed")
    }
    return sent
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
}

var taps = 60
var arguments = Array(CommandLine.arguments.dropFirst()).makeIterator()
while let flag = arguments.next() {
    guard flag == "--taps", let value = arguments.next().flatMap(Int.init), value > 0 else {
        FileHandle.standardError.write(Data("usage: feedback-bench [--taps N]\n".utf8))
        exit(2)
    }
    taps = value
}

do {
    let tag = try VirtualTag.start(reader: 1, mode: "foreign-uri", stampPseudoAPDUs: true)
    defer { tag.stop() }
    let directory = try makeScratchDirectory("feedback-bench")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let socketPath = directory + "/scand.sock"
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: builtProduct("sealtrust-scand"))
    daemon.arguments = ["--socket", socketPath, "--journal", directory + "/journal", "--nfc", tag.readerName, "--camera", "none",
                        "--feedback", "auto", "--log-level", "warning"]
    daemon.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try daemon.run()
    defer { daemon.terminate(); daemon.waitUntilExit() }

    var subscriber: LineClient?
    let listening = ContinuousClock.now + .seconds(20)
    while subscriber == nil {
        subscriber = try? LineClient(path: socketPath)
        guard subscriber != nil || ContinuousClock.now < listening else { throw BenchFailure("the daemon did not listen") }
        if subscriber == nil { usleep(2_000) }
    }
    let watcher = subscriber!
    _ = try watcher.readLine(timeout: .seconds(10))
    try watcher.send(#"{"cmd":"watch","events":["verdict","source"]}"#)
    while true {
        guard let line = try watcher.readLine(timeout: .seconds(20)) else { throw BenchFailure("the reader never became ready") }
        if line.contains(#""state":"ready""#) && line.contains(tag.readerName) { break }
    }

    var daemonDelays: [Double] = []
    var referenceDelays: [Double] = []
    for _ in 0..<taps {
        let mark = tag.transcript.count
        try await tag.present()
        var verdictAt: Int64?
        while verdictAt == nil {
            guard let line = try watcher.readLine(timeout: .seconds(20)) else { throw BenchFailure("no verdict after a tap") }
            if line.contains(#""type":"verdict""#) { verdictAt = monotonicNanoseconds() }
        }
        let shown = try await tag.waitForLine(after: mark) { $0.hasPrefix("PSEUDO FF0040") }
        let shownAt = try arrival(shown)
        daemonDelays.append(Double(shownAt - verdictAt!) / 1e6)

        let referenceMark = tag.transcript.count
        let sent = try transmitDirectly(ReaderSignal.caution.command, reader: tag.readerName)
        let received = try await tag.waitForLine(after: referenceMark) { $0.hasPrefix("PSEUDO FF0040") }
        let receivedAt = try arrival(received)
        referenceDelays.append(Double(receivedAt - sent) / 1e6)
        try await tag.remove()
    }

    func row(_ label: String, _ values: [Double]) -> String {
        label.padding(toLength: 50, withPad: " ", startingAt: 0)
            + [0.5, 0.99, 1].map { String(format: "%9.3f", percentile(values, $0)) }.joined()
    }
    print("reader feedback: a verdict, then the LED and buzzer command at the tag (vpcd, vtag), \(taps) taps")
    print("".padding(toLength: 50, withPad: " ", startingAt: 0) + "      p50      p99      max  (ms)")
    print(row("daemon: verdict at a subscriber → command at tag", daemonDelays))
    print(row("reference: one SCardTransmit → command at tag", referenceDelays))
    let p99 = percentile(daemonDelays, 0.99)
    print(String(format: "daemon p99 %.3f ms, goal ≤ 5 ms: ", p99) + (p99 <= 5 ? "met" : "NOT met")
        + String(format: "; %.2f× the reference's p99", p99 / percentile(referenceDelays, 0.99)))
} catch {
    FileHandle.standardError.write(Data("feedback-bench: \(error)\n".utf8))
    exit(1)
}
