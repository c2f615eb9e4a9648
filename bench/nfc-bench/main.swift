import Foundation
import Harness
import NFCReader

// Tap-to-URL latency through pcscd and vpcd: NFCReader's readDuration (card-present event to URI)
// side by side with bench/nfc/pcsc_read.c sending the same commands to the same virtual tag.
//
//   nfc-bench --reference PATH [--taps 200] [--block 20]
//
// Blocks of taps alternate between the two so that both meet the same machine load.

struct Options {
    var reference = ""
    var taps = 200
    var block = 20

    init(_ arguments: [String]) throws {
        var rest = arguments.makeIterator()
        while let flag = rest.next() {
            guard let value = rest.next() else { throw BenchFailure("\(flag) needs a value") }
            switch flag {
            case "--reference": reference = value
            case "--taps": taps = try Self.positive(value, flag)
            case "--block": block = try Self.positive(value, flag)
            default: throw BenchFailure("unknown option \(flag); usage: nfc-bench --reference PATH [--taps N] [--block N]")
            }
        }
        guard !reference.isEmpty else { throw BenchFailure("--reference PATH (the compiled bench/nfc/pcsc_read.c) is required") }
    }

    private static func positive(_ text: String, _ flag: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw BenchFailure("\(flag) takes a positive whole number") }
        return value
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

let reader = "Virtual PCD 00 00"

/// Taps read by NFCReader's monitor, which runs only during its block.
func moduleBlock(_ taps: Int, tag: VirtualTag) async throws -> [Duration] {
    try await Task.sleep(for: VirtualTag.removalNoticed)  // pcscd must have seen the last tap leave
    let events = NFCMonitor(readerFilter: reader).events()
    var iterator = events.makeAsyncIterator()
    while let event = await iterator.next(), event != .readerAttached(name: reader) {
        if case .serviceUnavailable(let detail) = event { throw BenchFailure("the private pcscd: \(detail)") }
    }
    var durations: [Duration] = []
    for _ in 0 ..< taps {
        try await tag.present()
        var outcome: NFCEvent?
        while outcome == nil, let event = await iterator.next() {
            switch event {
            case .tagRead, .tagFailed: outcome = event
            default: continue
            }
        }
        guard case .tagRead(let read) = outcome else { throw BenchFailure("NFCReader: \(String(describing: outcome))") }
        try await tag.settle()  // vtag's line for this tap may come after the reader's answer
        guard read.uri == tag.signedReads.last?.url else { throw BenchFailure("NFCReader read \(read.uri), not the signed URL") }
        durations.append(read.readDuration)
        try await tag.remove()
    }
    return durations
}

/// Taps read by the C reference, which runs only during its block.
func referenceBlock(_ taps: Int, tag: VirtualTag, program: String) async throws -> [Duration] {
    let reference = try ChildProcess(program, [reader, String(taps)])
    _ = try await reference.waitForLine(timeout: .seconds(10)) { $0 == "READY" }
    var durations: [Duration] = []
    for _ in 0 ..< taps {
        let mark = reference.lines.count
        try await tag.present()
        let line = try await reference.waitForLine(after: mark, timeout: .seconds(10)) { $0.hasPrefix("READ ") || $0.hasPrefix("FAIL ") }
        let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard fields.count == 3, fields[0] == "READ", let microseconds = Double(fields[1]) else {
            throw BenchFailure("pcsc_read: \(line)")
        }
        try await tag.settle()  // vtag's line for this tap may come after the reader's answer
        guard fields[2] == tag.signedReads.last?.url else { throw BenchFailure("pcsc_read read \(fields[2]), not the signed URL") }
        durations.append(.microseconds(microseconds))
        try await tag.remove()
    }
    reference.waitForExit(timeout: .seconds(10))
    return durations
}

func percentile(_ sorted: [Duration], _ fraction: Double) -> Duration {
    sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
}

func milliseconds(_ duration: Duration) -> String {
    String(format: "%.3f ms", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
}

func ratio(_ a: Duration, _ b: Duration) -> String {
    String(format: "%.2f", a / b)
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let tag = try VirtualTag.start(reader: 0, chip: "authentic")
    defer { tag.stop() }
    var module: [Duration] = [], reference: [Duration] = []
    while module.count < options.taps || reference.count < options.taps {
        let referenceTaps = min(options.block, options.taps - reference.count)
        if referenceTaps > 0 {
            reference += try await referenceBlock(referenceTaps, tag: tag, program: options.reference)
        }
        let moduleTaps = min(options.block, options.taps - module.count)
        if moduleTaps > 0 {
            module += try await moduleBlock(moduleTaps, tag: tag)
        }
        print("taps: \(module.count) NFCReader, \(reference.count) C reference")
    }
    let (m, r) = (module.sorted(), reference.sorted())
    print("tap-to-URL through pcscd + vpcd, \(options.taps) taps each, blocks of \(options.block)")
    func row(_ label: String, _ sorted: [Duration]) -> String {
        ([label] + [percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.first!, sorted.last!].map(milliseconds))
            .map { $0.padding(toLength: 16, withPad: " ", startingAt: 0) }.joined()
    }
    print(["", "p50", "p99", "min", "max"].map { $0.padding(toLength: 16, withPad: " ", startingAt: 0) }.joined())
    print(row("NFCReader", m))
    print(row("C libpcsclite", r))
    print("ratio NFCReader / C: p50 \(ratio(percentile(m, 0.5), percentile(r, 0.5))), p99 \(ratio(percentile(m, 0.99), percentile(r, 0.99))) (goal <= 1.2)")
} catch {
    FileHandle.standardError.write(Data("nfc-bench: \(error)\n".utf8))
    exit(1)
}
