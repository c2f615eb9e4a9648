/// How to reach the broker and what to leave there if the connection dies.
struct BrokerSettings: Sendable {
    /// In order of preference (`--url`, repeated).
    let addresses: [BrokerAddress]
    let clientID: String
    let credentials: Credentials?
    let caFile: String?
    let certificate: String?
    let key: String?
    /// The retained `{"state":"offline"}` the broker publishes when the connection dies (nil: no will).
    let willTopic: String?
    /// Subscribed at each connection, at `subscriptionQoS`: the bridge's replay requests, the `watch` command's topics.
    let subscriptions: [String]
    /// 1 for the watch's events. The bridge takes its replay requests at 0: its session is clean, so QoS 1 keeps
    /// nothing across a reconnect that 0 loses (the watch asks again when unanswered), while RabbitMQ keeps a QoS 1
    /// subscription of a clean session in a durable queue on the node it was made on, and refuses the subscription on
    /// every other node while that one is down: the bridge could not fail over until it came back.
    var subscriptionQoS: Int32 = 1
    /// Whether retained messages are wanted on them (the watch's statuses); when not, an MQTT 5 broker is asked not to
    /// send them, and those that still come are the observer's to drop.
    var retainedWanted = true
    /// The protocol of each broker's first CONNECT (`--mqtt-version`).
    var firstVersion = ProtocolVersion.mqtt5
    /// The broker pings within this many seconds; a dead TCP connection is found within 1.5 times it.
    let keepaliveSeconds: Int32 = 30
    /// A broker that accepted TCP but has not answered CONNECT within this is given up.
    let connackTimeout: Duration = .seconds(10)
    /// On a later broker, how often the first is tried again (a TCP connection), to go back to it.
    let returnCheckInterval: Duration = .seconds(10)
    /// Once the first answers again, the later broker is left when what it was handed is acknowledged
    /// (`BrokerObserver.mayLeave`), or after this at the latest.
    let returnDrainLimit: Duration = .seconds(60)

    /// MQTT 5 falls back to 3.1.1 on a broker that refuses it; 3.1.1 is for one that drops the connection instead of
    /// refusing (RabbitMQ before 3.13): such a drop looks like a dying broker, so it is not taken as a refusal.
    enum ProtocolVersion: Sendable {
        case mqtt5
        case mqtt311
    }

    static let offlinePayload = #"{"state":"offline"}"#
    /// What libmosquitto may send before PUBACKs (its own default is 20): the bridge's window, so that nothing the
    /// bridge hands over waits unsent in libmosquitto's queue. A broker's lower receive maximum wins.
    static let sendMaximum = 1_000
}

/// What the broker link reports, on its own thread.
protocol BrokerObserver: Sendable {
    /// The broker at `address` accepted session `session`, taking up to `receiveMaximum` messages in flight: publishing
    /// may begin.
    func brokerConnected(session: Int, address: BrokerAddress, protocolVersion: Int32, receiveMaximum: Int)
    /// The PUBACK of `mid` (reason code 0 unless an MQTT 5 broker refused the message), only once the `register` of
    /// its publish has run.
    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32)
    /// The connection failed or ended; the next attempt, at `next`, follows after `retryIn`.
    func brokerUnavailable(reason: String, next: BrokerAddress, retryIn: Duration)
    /// A message on the subscription; `retained`: one the broker kept, not one published now.
    func brokerMessage(topic: String, payload: [UInt8], retained: Bool)
    /// Whether the session on a later broker may end now for the first, which answers again: not while events handed
    /// to it wait for their PUBACKs, which a new session would send again (on a cluster, to the same engine, which a
    /// node's death has left behind: every moved station's events twice).
    var mayLeave: Bool { get }
}
