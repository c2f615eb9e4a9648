import Foundation
import Glibc
import Synchronization
import TestSupport

/// A misbehaving MQTT server on a loopback port, for the bad-broker tests: one that
/// accepts TCP and reads but never answers, or one that answers CONNECT and hangs up a second later.
public final class FakeBroker: Sendable {
    public enum Behaviour: Sendable {
        case neverAcknowledges
        case disconnectsEverySecond
        /// An MQTT 3.1.1-only server: refuses an MQTT 5 CONNECT as a 3.1.1 broker does, acknowledges 3.1.1 publishes.
        case speaksOnly311
    }

    public let port: Int
    private let listener: Int32
    private let connections = Counter()
    private let publishes = Counter()

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    public init(_ behaviour: Behaviour) throws {
        let (listener, port) = try listenOnLoopback()
        self.listener = listener
        self.port = port
        let connections = self.connections
        let publishes = self.publishes
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                connections.value.add(1, ordering: .relaxed)
                Thread { FakeBroker.serve(client, behaviour, publishes: publishes) }.start()
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// How many TCP connections it accepted: a client in a busy loop would make thousands.
    public var acceptedConnections: Int { connections.value.load(ordering: .relaxed) }
    /// How many QoS 1 PUBLISH packets it acknowledged (`speaksOnly311`).
    public var acknowledgedPublishes: Int { publishes.value.load(ordering: .relaxed) }

    private static func serve(_ client: Int32, _ behaviour: Behaviour, publishes: Counter) {
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(client, &buffer, buffer.count, 0)
        guard count > 0 else { return }
        switch behaviour {
        case .neverAcknowledges:
            while recv(client, &buffer, buffer.count, 0) > 0 {}
        case .disconnectsEverySecond:
            // CONNECT's protocol level is byte 8 of a short packet: 5 gets an MQTT 5 CONNACK (with empty properties).
            let connack: [UInt8] = count > 8 && buffer[8] == 5 ? [0x20, 0x03, 0x00, 0x00, 0x00] : [0x20, 0x02, 0x00, 0x00]
            _ = send(client, connack, connack.count, Int32(MSG_NOSIGNAL))
            var waiting = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline {
                if poll(&waiting, 1, 100) > 0, recv(client, &buffer, buffer.count, 0) <= 0 { return }
            }
        case .speaksOnly311:
            guard count > 8, buffer[8] == 4 else {
                _ = send(client, [0x20, 0x02, 0x00, 0x01] as [UInt8], 4, Int32(MSG_NOSIGNAL))  // unacceptable protocol version
                return
            }
            _ = send(client, [0x20, 0x02, 0x00, 0x00] as [UInt8], 4, Int32(MSG_NOSIGNAL))
            acknowledgePublishes(client, publishes: publishes)
        }
    }

    /// Reads packets and answers QoS 1 PUBLISH with PUBACK, PINGREQ with PINGRESP.
    private static func acknowledgePublishes(_ client: Int32, publishes: Counter) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return }
            pending += chunk[0..<count]
            for packet in MQTTPackets.take(from: &pending) {
                if let id = MQTTPackets.qos1PacketID(of: packet) {
                    let puback = MQTTPackets.puback(id)
                    _ = send(client, puback, puback.count, Int32(MSG_NOSIGNAL))
                    publishes.value.add(1, ordering: .relaxed)
                } else if packet[0] >> 4 == 12 {
                    _ = send(client, [0xD0, 0x00] as [UInt8], 2, Int32(MSG_NOSIGNAL))
                } else if packet[0] >> 4 == 14 {
                    return
                }
            }
        }
    }
}
