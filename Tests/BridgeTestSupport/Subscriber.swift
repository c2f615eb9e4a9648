import Foundation
import Glibc
import TestSupport

/// One message a subscriber received: its topic, the payload, and the payload's seq when it has one.
public struct ReceivedMessage: Sendable {
    public let topic: String
    public let payload: String
    public let seq: UInt64?
}

/// Debian's mosquitto_sub at QoS 1 with a persistent session (`-c`), printing `topic payload`
/// lines into a file that this reads incrementally. Ready once it received a probe message.
public final class Subscriber {
    private let process: ChildProcess
    private let outputPath: String
    private let output: FileHandle
    private var pending = Data()
    public private(set) var messages: [ReceivedMessage] = []
    /// The seqs of event messages, in arrival order (repeats included).
    public private(set) var eventSeqs: [UInt64] = []
    public private(set) var distinctEvents = Set<UInt64>()
    public private(set) var highestSeq: UInt64 = 0

    public init(broker: MosquittoBroker, topic: String = "sealtrust/#", clientID: String = "test-subscriber-\(UUID().uuidString.prefix(8))") throws {
        outputPath = broker.directory + "/\(clientID).out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw HarnessError("cannot create \(outputPath)")
        }
        output = try FileHandle(forReadingFrom: URL(fileURLWithPath: outputPath))
        process = try ChildProcess("/usr/bin/mosquitto_sub",
                                   broker.clientArguments + ["-q", "1", "-c", "-i", clientID, "-v", "-t", topic, "-t", "probe/\(clientID)"],
                                   output: .file(outputPath))
        let probeTopic = "probe/\(clientID)"
        try waitUntil("the subscriber did not receive its probe", timeout: .seconds(10)) {
            try runTool("/usr/bin/mosquitto_pub", broker.clientArguments + ["-q", "1", "-t", probeTopic, "-m", "probe"])
            readNew()
            return messages.contains { $0.topic == probeTopic }
        }
        messages.removeAll { $0.topic == probeTopic }
    }

    deinit {
        try? output.close()
    }

    /// Takes in what mosquitto_sub printed since the last call.
    public func readNew() {
        pending.append(output.readDataToEndOfFile())
        guard let lastNewline = pending.lastIndex(of: 0x0A) else { return }
        let complete = pending[pending.startIndex...lastNewline]
        for line in complete.split(separator: 0x0A) {
            let text = String(decoding: line, as: UTF8.self)
            guard let space = text.firstIndex(of: " ") else { continue }
            let payload = String(text[text.index(after: space)...])
            let message = ReceivedMessage(topic: String(text[..<space]), payload: payload, seq: Self.seq(in: payload))
            messages.append(message)
            if let seq = message.seq, message.topic.contains("/event/") {
                eventSeqs.append(seq)
                distinctEvents.insert(seq)
                highestSeq = max(highestSeq, seq)
            }
        }
        pending = Data(pending[(lastNewline + 1)...])
    }

    /// Waits until event seqs `1...last` have all arrived.
    public func waitForEvents(through last: UInt64, timeout: Duration) throws {
        try waitUntil("the subscriber has \(distinctEvents.count) distinct events, not \(last)", timeout: timeout) {
            readNew()
            return distinctEvents.count >= Int(last) && highestSeq >= last
        }
    }

    /// The last payload received on `topic`.
    public func last(on topic: String) -> String? {
        readNew()
        return messages.last { $0.topic == topic }?.payload
    }

    public func stop() {
        process.stop()
    }

    static func seq(in payload: String) -> UInt64? {
        guard let range = payload.range(of: #""seq":"#) else { return nil }
        return UInt64(payload[range.upperBound...].prefix { $0.isNumber })
    }
}
