import Foundation
import Glibc
import Synchronization

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
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, Glibc.listen(listener, 16) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else { throw BridgeHarnessError("fake broker: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: address.sin_port))
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

    /// Reads packets (fixed header, variable length) and answers QoS 1 PUBLISH with PUBACK, PINGREQ with PINGRESP.
    private static func acknowledgePublishes(_ client: Int32, publishes: Counter) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return }
            pending += chunk[0..<count]
            while pending.count >= 2 {
                var length = 0
                var multiplier = 1
                var index = 1
                while index < pending.count {
                    length += Int(pending[index] & 0x7F) * multiplier
                    multiplier *= 128
                    if pending[index] & 0x80 == 0 { break }
                    index += 1
                }
                guard index < pending.count, pending.count >= index + 1 + length else { break }
                let packet = Array(pending[0..<(index + 1 + length)])
                pending.removeFirst(packet.count)
                let body = packet[(index + 1)...]
                switch packet[0] >> 4 {
                case 3 where (packet[0] >> 1) & 0x03 == 1:
                    let topicLength = Int(body[body.startIndex]) << 8 | Int(body[body.startIndex + 1])
                    let id = body.startIndex + 2 + topicLength
                    _ = send(client, [0x40, 0x02, body[id], body[id + 1]] as [UInt8], 4, Int32(MSG_NOSIGNAL))
                    publishes.value.add(1, ordering: .relaxed)
                case 12:
                    _ = send(client, [0xD0, 0x00] as [UInt8], 2, Int32(MSG_NOSIGNAL))
                case 14:
                    return
                default:
                    break
                }
            }
        }
    }
}
