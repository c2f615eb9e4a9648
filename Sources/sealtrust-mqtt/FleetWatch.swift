import StationWire
import Glibc
import JSONCore
import Synchronization

/// `sealtrust-mqtt watch`: every station's events from the broker, one line each,
/// `STATION  <the line sealtrust-scanctl watch prints>`.
final class FleetWatch: BrokerObserver, Sendable {
    private let prefix: String
    private let formatters = Mutex<[String: EventFormatter]>([:])

    init(prefix: String) {
        self.prefix = prefix
    }

    static func settings(_ options: BridgeOptions, credentials: Credentials?) -> BrokerSettings {
        BrokerSettings(address: options.url!, clientID: "sealtrust-mqtt-watch-\(getpid())", credentials: credentials,
                       caFile: options.caFile, certificate: options.certificate, key: options.key,
                       willTopic: nil, subscription: Topics.allEvents(prefix: options.topicPrefix))
    }

    func brokerMessage(topic: String, payload: [UInt8]) {
        // <prefix>/<station>/event/<type>
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 3, levels[1] == "event" else { return }
        let station = String(levels[0])
        let text: String
        if let message = try? JSON.parse(utf8: payload),
           let line = formatters.withLock({ $0[station, default: EventFormatter()].line(for: message) }) {
            text = line
        } else {
            text = "unreadable event on \(topic): \(String(decoding: payload.prefix(200), as: UTF8.self))"
        }
        Self.print("\(station)  \(text)".printable)
    }

    func brokerConnected(session: Int, protocolVersion: Int32) {
        LogLine.notice("watching \(Topics.allEvents(prefix: prefix))")
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {}

    func brokerUnavailable(reason: String, retryIn: Duration) {
        LogLine.error("broker: \(reason.printable); retrying in \(retryIn.components.seconds) s")
    }

    /// Whole lines straight to stdout, so each is out at once even into a pipe.
    private static func print(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(1, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return }
            written += result
        }
    }
}
