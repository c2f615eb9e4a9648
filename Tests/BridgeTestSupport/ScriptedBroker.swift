import Foundation
import Glibc
import Synchronization
import TestSupport

/// An MQTT 5 server that acknowledges by a script, to test what the bridge takes as acknowledged. Each connection
/// gets a CONNACK that allows `receiveMaximum` messages in flight, and the script of its number; every event PUBLISH is
/// recorded with its connection and packet id.
public final class ScriptedBroker: Sendable {
    public struct Received: Sendable, Equatable {
        public let connection: Int
        public let mid: Int
        public let seq: UInt64
    }

    /// What one connection does with the events it receives.
    public enum Script: Sendable {
        /// Acknowledges every PUBLISH at once, in order.
        case acknowledgeAll
        /// Waits for `count` events, acknowledges the first `acknowledged` of them, then hangs up.
        case acknowledgeFirstThenHangUp(count: Int, acknowledged: Int)
        /// Waits for `count` events; then sends PUBACKs for the `never` packet ids after them, which it never received
        /// (a broker that reuses the ids of an earlier session, or answers ahead), then for the `count` it received,
        /// last first (out of order); then reads on without acknowledging anything.
        case acknowledgeUnreceivedThenOutOfOrder(count: Int, never: Int)
        /// Reads and acknowledges nothing.
        case hold
    }

    public let port: Int
    public let receiveMaximum: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var received: [Received] = []
        var connections = 0
    }

    /// `scripts[n]` for connection n (from 0); the last one for every later connection.
    public init(receiveMaximum: Int, scripts: [Script]) throws {
        let (listener, port) = try listenOnLoopback()
        self.listener = listener
        self.port = port
        self.receiveMaximum = receiveMaximum
        Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                guard let self else {
                    close(client)
                    return
                }
                let number = self.state.withLock { state -> Int in
                    defer { state.connections += 1 }
                    return state.connections
                }
                let script = scripts[min(number, scripts.count - 1)]
                Thread { self.serve(client, connection: number, script: script) }.start()
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    public var url: String { "mqtt://127.0.0.1:\(port)" }
    public var received: [Received] { state.withLock { $0.received } }
    public var connections: Int { state.withLock { $0.connections } }

    public func received(on connection: Int) -> [Received] {
        received.filter { $0.connection == connection }
    }

    private func serve(_ client: Int32, connection: Int, script: Script) {
        defer { close(client) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var waiting: [Received] = []
        var scripted = false
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return }
            pending += chunk[0..<count]
            for packet in MQTTPackets.take(from: &pending) {
                switch packet[0] >> 4 {
                case 1:
                    // CONNACK: no session present, success, properties: receive maximum (0x21).
                    let connack: [UInt8] = [0x20, 0x06, 0x00, 0x00, 0x03, 0x21, UInt8(receiveMaximum >> 8), UInt8(receiveMaximum & 0xFF)]
                    write(client, connack)
                case 3:
                    guard let id = MQTTPackets.qos1PacketID(of: packet) else { continue }
                    let mid = Int(id.0) << 8 | Int(id.1)
                    guard let seq = MQTTPackets.eventSeq(of: packet), packet.firstRange(of: Array("/event/".utf8)) != nil else {
                        write(client, MQTTPackets.puback(id))  // the status: acknowledged, not recorded
                        continue
                    }
                    let event = Received(connection: connection, mid: mid, seq: seq)
                    state.withLock { $0.received.append(event) }
                    waiting.append(event)
                    switch script {
                    case .acknowledgeAll:
                        write(client, MQTTPackets.puback(id))
                    case .acknowledgeFirstThenHangUp(let count, let acknowledged) where waiting.count == count:
                        for event in waiting.prefix(acknowledged) { write(client, Self.puback(event.mid)) }
                        return
                    case .acknowledgeUnreceivedThenOutOfOrder(let count, let never) where waiting.count == count && !scripted:
                        scripted = true
                        let highest = waiting.map(\.mid).max() ?? 0
                        for mid in (highest + 1)...(highest + never) { write(client, Self.puback(mid)) }
                        for event in waiting.reversed() { write(client, Self.puback(event.mid)) }
                    default:
                        break
                    }
                case 12:
                    write(client, [0xD0, 0x00])
                case 14:
                    return
                default:
                    continue
                }
            }
        }
    }

    private static func puback(_ mid: Int) -> [UInt8] { MQTTPackets.puback((UInt8(mid >> 8), UInt8(mid & 0xFF))) }

    private func write(_ client: Int32, _ bytes: [UInt8]) {
        _ = send(client, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }
}
