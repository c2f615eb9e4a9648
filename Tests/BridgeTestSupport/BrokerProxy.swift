import Foundation
import Glibc
import Synchronization
import TestSupport

/// A broker that loses what it acknowledged, or holds its acknowledgements, on purpose: a loopback proxy in front of
/// a real mosquitto that passes every packet both ways, except the event PUBLISHes its rules name. Those it answers
/// with a PUBACK itself and drops (a broker at fault), or swallows without an answer (a broker that holds its
/// acknowledgements), so a test chooses the very point where the bridge's position stops.
public final class BrokerProxy: Sendable {
    private struct Rules {
        /// Acknowledged, then dropped, the first time each is seen (a replay of it passes).
        var dropOnce: Set<UInt64> = []
        /// Events above this seq get no PUBACK and never reach the broker.
        var holdAbove: UInt64?
        var dropped: [UInt64] = []
        var clients: [Int32] = []
    }

    public let port: Int
    private let listener: Int32
    private let rules = Mutex(Rules())

    public init(upstreamPort: Int) throws {
        let (listener, port) = try listenOnLoopback()
        self.listener = listener
        self.port = port
        Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                guard let self, let upstream = connectToLoopback(port: upstreamPort) else {
                    close(client)
                    continue
                }
                self.rules.withLock { $0.clients.append(client) }
                let clientSide = LockedWriter(client)
                Thread { self.relay(from: client, to: upstream, answering: clientSide, inspect: true) }.start()
                Thread { self.relay(from: upstream, to: client, answering: clientSide, inspect: false) }.start()
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Each of `seqs` is acknowledged and dropped the first time it passes.
    public func dropOnce(_ seqs: Set<UInt64>) {
        rules.withLock { $0.dropOnce = seqs }
    }

    /// Events above `seq` get no PUBACK; nil lets all pass again.
    public func holdAcknowledgements(above seq: UInt64?) {
        rules.withLock { $0.holdAbove = seq }
    }

    /// Ends every connection, as a broker that goes away does; the next ones pass as before.
    public func disconnectAll() {
        for client in rules.withLock({ $0.clients }) { shutdown(client, Int32(SHUT_RDWR)) }
    }

    /// The seqs dropped after a PUBACK, in order.
    public var dropped: [UInt64] { rules.withLock { $0.dropped } }

    private enum Fate { case pass, acknowledgeAndDrop, swallow }

    private func fate(of packet: [UInt8]) -> Fate {
        guard let seq = MQTTPackets.eventSeq(of: packet) else { return .pass }
        return rules.withLock { rules in
            if let limit = rules.holdAbove, seq > limit { return .swallow }
            guard rules.dropOnce.remove(seq) != nil else { return .pass }
            rules.dropped.append(seq)
            return .acknowledgeAndDrop
        }
    }

    /// Whole packets from `source` to `destination`; the client's side is written under its lock, so an injected
    /// PUBACK never cuts a packet from the broker in two.
    private func relay(from source: Int32, to destination: Int32, answering client: LockedWriter, inspect: Bool) {
        defer {
            shutdown(source, Int32(SHUT_RDWR))
            shutdown(destination, Int32(SHUT_RDWR))
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(source, &chunk, chunk.count, 0)
            if count <= 0 { return }
            pending += chunk[0..<count]
            for packet in MQTTPackets.take(from: &pending) {
                switch inspect ? fate(of: packet) : .pass {
                case .pass:
                    let sent = inspect ? Self.sendAll(destination, packet) : client.send(packet)
                    if !sent { return }
                case .acknowledgeAndDrop:
                    guard let id = MQTTPackets.qos1PacketID(of: packet), client.send(MQTTPackets.puback(id)) else { return }
                case .swallow:
                    continue
                }
            }
        }
    }

    /// The client's socket, written by both relays one packet at a time.
    private final class LockedWriter: Sendable {
        private let descriptor: Int32
        private let lock = Mutex(())

        init(_ descriptor: Int32) { self.descriptor = descriptor }

        func send(_ bytes: [UInt8]) -> Bool { lock.withLock { _ in BrokerProxy.sendAll(descriptor, bytes) } }
    }

    fileprivate static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { return false }
            written += result
        }
        return true
    }
}
