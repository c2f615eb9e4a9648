import CMosquitto
import Glibc
import POSIXSupport
import StationClient
import Synchronization

/// The connection to the broker, on a thread of its own that blocks in libmosquitto.
///
/// Each session uses a new libmosquitto instance with a clean session: what was in
/// flight when a connection died is not resent by the library but read again from the
/// daemon's journal by the bridge, so the bridge alone decides what goes out, in order.
/// Attempts wait `ReconnectBackoff` (1 s doubling to `longestWait`, with jitter), reset after a
/// CONNACK. An MQTT 5 CONNECT refused for its protocol version is retried at once as 3.1.1.
///
/// With several brokers (`--url` repeated), a failed or lost one is followed at once by the next, and the back-off
/// waits only once every broker has failed in turn; on a later broker, the first is tried every
/// `returnCheckInterval` (`BrokerProbe`), and once it answers, and what this session was handed is acknowledged
/// (`BrokerObserver.mayLeave`, `returnDrainLimit` at most), the session ends cleanly and the link goes back to it.
/// Each session sets its will and its status on the broker it is with.
final class BrokerLink: Sendable {
    private struct Live: Sendable {
        var handle: MosquittoHandle?
        var session = 0
        var ready = false
    }

    /// The longest wait between attempts. A broker back from an outage gets the station's events within this (±20 %),
    /// not a minute later as with the daemon link's 60 s; a fleet's stations, at one attempt each per 10 s at most,
    /// cost a broker little while it is away.
    static let longestWait: Duration = .seconds(10)

    let settings: BrokerSettings
    private let observer: any BrokerObserver
    private let live = Mutex(Live())
    private let stopping = Atomic<Bool>(false)
    /// Set by a probe when the first broker answers again.
    private let firstAnswers = Atomic<Bool>(false)

    init(settings: BrokerSettings, observer: any BrokerObserver) {
        self.settings = settings
        self.observer = observer
    }

    /// Runs the link on its own thread until cancelled. Then, if connected, it publishes `{"state":"offline"}`
    /// (retained) and disconnects cleanly, so the will is not sent; it returns once the thread has ended.
    func run() async {
        await OSThread.run(name: "mqtt-link", stop: { [self] in stopping.store(true, ordering: .sequentiallyConsistent) }) { [self] in
            runSessions()
        }
    }

    enum Publication {
        case queued(mid: Int32, session: Int)
        /// No accepted session now: wait for the next one.
        case notConnected
        /// libmosquitto refused the message itself (too large for the broker, a topic it rejects).
        case refused(MosquittoError)
    }

    /// Queues a QoS 1 message on the accepted session. `register` runs with its mid before its PUBACK can be taken
    /// (the PUBACK waits for this call to end), so the caller's record of it is never behind the broker's answer.
    func publish(topic: String, payload: String, retain: Bool,
                 register: (_ mid: Int32, _ session: Int) -> Void = { _, _ in }) -> Publication {
        let bytes = Array(payload.utf8)
        return live.withLock { live -> Publication in
            guard live.ready, let handle = live.handle else { return .notConnected }
            do throws(MosquittoError) {
                let mid = try handle.publish(topic: topic, payload: bytes, qos: 1, retain: retain)
                register(mid, live.session)
                return .queued(mid: mid, session: live.session)
            } catch {
                let lostConnection = [MOSQ_ERR_NO_CONN, MOSQ_ERR_CONN_LOST].map { Int32($0.rawValue) }.contains(error.code)
                return lostConnection ? .notConnected : .refused(error)
            }
        }
    }

    /// Runs `body` (a PUBACK's handling, on the link's thread) once no `publish` is between libmosquitto and its `register`.
    fileprivate func afterPublishing(_ body: () -> Void) {
        live.withLock { _ in body() }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func runSessions() {
        let addresses = settings.addresses
        var backoff = ReconnectBackoff(longest: Self.longestWait)
        let first = settings.firstVersion == .mqtt311 ? Int32(MQTT_PROTOCOL_V311) : Int32(MQTT_PROTOCOL_V5)
        var versions = addresses.map { _ in first }
        var index = 0
        /// Brokers that failed in a row since the last accepted session: the back-off waits once all have.
        var failedInTurn = 0
        var session = 0
        while !isStopping {
            session += 1
            let address = addresses[index]
            let context = SessionContext(session: session, address: address, protocolVersion: versions[index], observer: observer)
            let outcome = withExtendedLifetime(context) { runSession(session, at: index, version: versions[index], context: context) }
            let reason: String
            switch outcome {
            case .stopped:
                return
            case .protocolRefused where versions[index] == Int32(MQTT_PROTOCOL_V5):
                versions[index] = Int32(MQTT_PROTOCOL_V311)
                bridgeLog.notice("the broker \(address) does not speak MQTT 5; using MQTT 3.1.1")
                continue
            case .returning:
                index = 0
                failedInTurn = 0
                backoff.reset()
                observer.brokerUnavailable(reason: "left \(address), since \(addresses[0]) answers again", next: addresses[0], retryIn: .zero)
                continue
            case .protocolRefused:
                reason = "\(address) refused MQTT 3.1.1 too"
            case .failed(let why, let accepted):
                reason = why
                if accepted {
                    backoff.reset()
                    failedInTurn = 0
                }
            }
            failedInTurn += 1
            index = (index + 1) % addresses.count
            let wait = failedInTurn >= addresses.count ? backoff.next() : .zero
            if failedInTurn >= addresses.count { failedInTurn = 0 }
            observer.brokerUnavailable(reason: reason, next: addresses[index], retryIn: wait)
            pause(for: wait)
        }
    }

    private enum SessionOutcome {
        case stopped
        case protocolRefused
        case failed(reason: String, accepted: Bool)
        /// The first broker answers again: this later one was left cleanly for it.
        case returning
    }

    /// Tries the first broker every `returnCheckInterval` while `session` runs on a later one; sets `firstAnswers`.
    private func watchForTheFirst(during session: Int) {
        let first = settings.addresses[0]
        let interval = settings.returnCheckInterval
        OSThread.start(name: "mqtt-probe") { [self] in
            while true {
                OSThread.pause(for: interval)
                let current = live.withLock { $0.session }
                guard current == session, !isStopping else { return }
                if BrokerProbe.answers(first, within: .seconds(2)) {
                    firstAnswers.store(true, ordering: .sequentiallyConsistent)
                    return
                }
            }
        }
    }

    private func runSession(_ session: Int, at index: Int, version: Int32, context: SessionContext) -> SessionOutcome {
        let address = settings.addresses[index]
        guard let handle = MosquittoHandle(clientID: settings.clientID, context: Unmanaged.passUnretained(context).toOpaque()) else {
            return .failed(reason: "libmosquitto could not make a client (out of memory)", accepted: false)
        }
        context.install(on: handle, link: self)
        do {
            try handle.setProtocol(version: version)
            try handle.setSendMaximum(BrokerSettings.sendMaximum)
            try handle.setNoDelay()
            if let credentials = settings.credentials { try handle.setCredentials(user: credentials.user, password: credentials.password) }
            if address.usesTLS {
                if let problem = TLSFileCheck.problem(in: settings) { return .failed(reason: problem, accepted: false) }
                try handle.setTLS(caFile: settings.caFile, certificate: settings.certificate, key: settings.key)
            }
            if let willTopic = settings.willTopic { try handle.setWill(topic: willTopic, payload: BrokerSettings.offlinePayload) }
        } catch {
            return .failed(reason: "cannot set up the MQTT client (\(error); check --ca, --cert and --key)", accepted: false)
        }
        live.withLock { $0 = Live(handle: handle, session: session, ready: false) }
        defer { live.withLock { $0 = Live(handle: nil, session: session, ready: false) } }
        do {
            try handle.connect(host: address.host, port: address.port, keepalive: settings.keepaliveSeconds)
        } catch {
            return .failed(reason: "cannot connect to \(address): \(context.explain(error, host: address.host))", accepted: false)
        }
        let started = ContinuousClock.now
        firstAnswers.store(false, ordering: .sequentiallyConsistent)
        if index > 0 { watchForTheFirst(during: session) }
        /// When the first was found answering again: the session is left once the observer may leave it, or after
        /// `returnDrainLimit`.
        var firstAnsweredAt: ContinuousClock.Instant?
        while true {
            if isStopping {
                closeCleanly(handle, context: context)
                return .stopped
            }
            if context.accepted && firstAnswers.load(ordering: .sequentiallyConsistent) {
                let since = firstAnsweredAt ?? ContinuousClock.now
                firstAnsweredAt = since
                if observer.mayLeave || ContinuousClock.now - since >= settings.returnDrainLimit {
                    closeCleanly(handle, context: context)
                    return .returning
                }
            }
            do {
                try handle.loop(milliseconds: 250)
            } catch {
                if let refusal = context.refusal { return refused(refusal, by: address) }
                let accepted = context.accepted
                let what = accepted ? "lost the connection to \(address)" : "no answer to CONNECT from \(address)"
                return .failed(reason: "\(what): \(context.explain(error, host: address.host))", accepted: accepted)
            }
            if let refusal = context.refusal { return refused(refusal, by: address) }
            if !context.accepted && ContinuousClock.now - started > settings.connackTimeout {
                return .failed(reason: "\(address) accepted the connection but sent no CONNACK within \(settings.connackTimeout)", accepted: false)
            }
        }
    }

    private func refused(_ code: Int32, by address: BrokerAddress) -> SessionOutcome {
        if code == Int32(CONNACK_REFUSED_PROTOCOL_VERSION.rawValue) || code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) {
            return .protocolRefused
        }
        let words = code < 128 ? String(cString: mosquitto_connack_string(code)) : String(cString: mosquitto_reason_string(code))
        return .failed(reason: "\(address) refused the connection: \(words) (code \(code))", accepted: false)
    }

    /// The offline status, its PUBACK (up to 2 s), then DISCONNECT: a clean stop leaves no will behind.
    private func closeCleanly(_ handle: MosquittoHandle, context: SessionContext) {
        guard context.accepted else { return }
        if let willTopic = settings.willTopic,
           case .queued(let mid, _) = publish(topic: willTopic, payload: BrokerSettings.offlinePayload, retain: true) {
            context.awaitAcknowledgement(of: mid)
            let deadline = ContinuousClock.now + .seconds(2)
            while !context.finalAcknowledged && ContinuousClock.now < deadline {
                if (try? handle.loop(milliseconds: 100)) == nil { return }
            }
        }
        live.withLock { $0.ready = false }
        handle.disconnect()
        _ = try? handle.loop(milliseconds: 100)
    }

    /// Sleeps in slices of 100 ms, so that a stop is seen soon.
    private func pause(for duration: Duration) {
        OSThread.pause(for: duration, checkingEvery: .milliseconds(100)) { isStopping }
    }

    /// Called by the session's callbacks on this thread.
    fileprivate func accepted(session: Int, address: BrokerAddress, version: Int32, receiveMaximum: Int) {
        live.withLock { if $0.session == session { $0.ready = true } }
        observer.brokerConnected(session: session, address: address, protocolVersion: version, receiveMaximum: receiveMaximum)
    }
}

/// What one session's callbacks learn, read by the link's thread; the callbacks run on that same thread.
private final class SessionContext: Sendable {
    private struct State {
        var accepted = false
        var refusal: Int32?
        var lastLibraryError: String?
        var finalMid: Int32?
        var finalAcknowledged = false
        weak var link: BrokerLink?
    }

    let session: Int
    let address: BrokerAddress
    let protocolVersion: Int32
    let observer: any BrokerObserver
    private let state = Mutex(State())

    init(session: Int, address: BrokerAddress, protocolVersion: Int32, observer: any BrokerObserver) {
        self.session = session
        self.address = address
        self.protocolVersion = protocolVersion
        self.observer = observer
    }

    var accepted: Bool { state.withLock { $0.accepted } }
    var refusal: Int32? { state.withLock { $0.refusal } }
    var finalAcknowledged: Bool { state.withLock { $0.finalAcknowledged } }

    func awaitAcknowledgement(of mid: Int32) {
        state.withLock { $0.finalMid = mid }
    }

    /// A failure in words, with what libmosquitto logged (OpenSSL's reason for a TLS failure). OpenSSL's words for
    /// a certificate it refused are the same for an unknown CA and for another host's certificate: both are named.
    func explain(_ error: MosquittoError, host: String) -> String {
        guard let logged = state.withLock({ $0.lastLibraryError }) else { return error.description }
        guard logged.contains("certificate verify failed") else { return "\(error.description) (\(logged))" }
        return "\(error.description) (\(logged)): this station does not trust the broker's certificate: no CA of --ca "
            + "or of the system's store signed it, or it does not name \(host.printable)"
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> SessionContext? {
        pointer.map { Unmanaged<SessionContext>.fromOpaque($0).takeUnretainedValue() }
    }

    func install(on handle: MosquittoHandle, link: BrokerLink) {
        state.withLock { $0.link = link }
        mosquitto_connect_v5_callback_set(handle.pointer) { mosq, context, code, _, properties in
            guard let context = SessionContext.from(context) else { return }
            guard code == 0 else {
                context.state.withLock { $0.refusal = code }
                return
            }
            let link = context.state.withLock { state -> BrokerLink? in
                state.accepted = true
                return state.link
            }
            // MQTT 5's receive maximum (absent: no limit but libmosquitto's, which the link set).
            var receiveMaximum: UInt16 = 0
            let limited = properties != nil
                && mosquitto_property_read_int16(properties, Int32(MQTT_PROP_RECEIVE_MAXIMUM.rawValue), &receiveMaximum, false) != nil
            let room = limited && receiveMaximum > 0 ? Int(receiveMaximum) : BrokerSettings.sendMaximum
            link?.accepted(session: context.session, address: context.address, version: context.protocolVersion, receiveMaximum: room)
            if let link, let mosq {
                // MQTT 5: no retained message at subscription when none is wanted (3.1.1 has no such option).
                let options = !link.settings.retainedWanted && context.protocolVersion == Int32(MQTT_PROTOCOL_V5)
                    ? Int32(MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue) : 0
                for pattern in link.settings.subscriptions {
                    mosquitto_subscribe_v5(mosq, nil, pattern, link.settings.subscriptionQoS, options, nil)
                }
            }
        }
        mosquitto_publish_v5_callback_set(handle.pointer) { _, context, mid, reason, _ in
            guard let context = SessionContext.from(context) else { return }
            let (isFinal, link) = context.state.withLock { state -> (Bool, BrokerLink?) in
                guard state.finalMid == mid else { return (false, state.link) }
                state.finalAcknowledged = true
                return (true, state.link)
            }
            guard !isFinal else { return }
            link?.afterPublishing { context.observer.brokerAcknowledged(mid: mid, session: context.session, reasonCode: reason) }
        }
        mosquitto_message_v5_callback_set(handle.pointer) { _, context, message, _ in
            guard let context = SessionContext.from(context), let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            context.observer.brokerMessage(topic: String(cString: topic), payload: payload, retained: message.retain)
        }
        mosquitto_log_callback_set(handle.pointer) { _, context, level, text in
            guard let context = SessionContext.from(context), let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            let line = String(cString: text).printable
            context.state.withLock { $0.lastLibraryError = String(line.prefix(300)) }
        }
    }
}
