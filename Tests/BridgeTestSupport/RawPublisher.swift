import Foundation
import Glibc
import TestSupport

/// A hostile or plain publisher on one MQTT 3.1.1 connection to the test broker: whatever payloads on whatever topics,
/// in order, many of them fast (mosquitto_pub starts a process each). QoS 1, each waited for, so that when `publish`
/// returns the broker has them.
public final class RawPublisher {
    private let socket: Int32
    private var nextID: UInt16 = 1
    private var pending: [UInt8] = []
    private var packets: [[UInt8]] = []

    public init(broker: MosquittoBroker) throws {
        guard let socket = connectToLoopback(port: broker.port) else { throw HarnessError("cannot reach mosquitto") }
        self.socket = socket
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let clientID = Self.string("raw-publisher-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let variable: [UInt8] = Self.string("MQTT") + [4, 0xC2, 0, 60]  // 3.1.1, user name, password, clean session
        try send(0x10, variable + clientID + Self.string(MosquittoBroker.user) + Self.string(MosquittoBroker.password))
        guard let connack = try receive(), connack[0] == 0x20, connack.last == 0 else { throw HarnessError("mosquitto refused the publisher") }
    }

    deinit {
        _ = Glibc.send(socket, [0xE0, 0x00] as [UInt8], 2, Int32(MSG_NOSIGNAL))
        close(socket)
    }

    /// Publishes each (topic, payload) at QoS 1 and waits for every PUBACK.
    public func publish(_ messages: [(topic: String, payload: String)], retain: Bool = false) throws {
        var waiting = Set<UInt16>()
        for message in messages {
            let id = nextID
            nextID = nextID == UInt16.max ? 1 : nextID + 1
            waiting.insert(id)
            try send(0x32 | (retain ? 1 : 0), Self.string(message.topic) + [UInt8(id >> 8), UInt8(id & 0xFF)] + Array(message.payload.utf8))
            while waiting.count > 32 { try awaitAcknowledgement(&waiting) }
        }
        while !waiting.isEmpty { try awaitAcknowledgement(&waiting) }
    }

    private func awaitAcknowledgement(_ waiting: inout Set<UInt16>) throws {
        guard let packet = try receive() else { throw HarnessError("mosquitto closed the publisher's connection") }
        if packet[0] >> 4 == 4 { waiting.remove(UInt16(packet[2]) << 8 | UInt16(packet[3])) }
    }

    private func send(_ header: UInt8, _ body: [UInt8]) throws {
        var packet = [header]
        var length = body.count
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            packet.append(byte)
        } while length > 0
        packet += body
        var sent = 0
        while sent < packet.count {
            let count = packet[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw HarnessError("cannot write to mosquitto: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    private func receive() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            if packets.isEmpty { packets = MQTTPackets.take(from: &pending) }
            if !packets.isEmpty { return packets.removeFirst() }
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            pending += chunk[0..<count]
        }
    }

    private static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }
}
