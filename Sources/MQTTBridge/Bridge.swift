import CMosquitto
import Glibc
import Lifecycle
import StationClient
import StationWire
import Synchronization
import SystemdSupport

/// Every journaled event of one station to the broker, in seq order, nothing lost.
///
/// Events are read through the daemon's `replay` from the acknowledged seq and published at QoS 1
/// through a bounded window (`PublishWindow`); a chip's scan waits for its first verdict
/// (`ChipScanHold`). The acknowledged seq advances only over PUBACKs of the session's own messages,
/// is saved in the state directory at most once a second and on stop, and a session that ends with
/// events unacknowledged makes the bridge read them again from the daemon: delivery is at least
/// once, repeats come right after a reconnect.
///
/// The rules are `BridgeRules`, a value; this runtime feeds it the daemon's updates, the broker link's reports (on the
/// link's thread), the replayer's progress and a tick a second, and carries out its effects. Its one lock holds the
/// rules and the link: libmosquitto's callbacks need it, and it is never held while a message goes to libmosquitto
/// (the link's own lock comes first: its `register` and PUBACKs take this one inside it).
final class Bridge: BrokerObserver, Service, Sendable {
    let name = "bridge"
    static let windowCapacity = BrokerSettings.sendMaximum
    static let askStatus = ClientCommand(id: "sealtrust-mqtt-status", action: .status)
    static let tickInterval: Duration = .seconds(1)

    private struct Core {
        var rules: BridgeRules
        /// Made once the daemon's `hello` named the station (its client id and topics).
        var link: BrokerLink?
    }

    private let options: BridgeOptions
    private let credentials: Credentials?
    private let seqFile: AcknowledgedSeqFile
    private let notifier: SystemdNotifier?
    private let feed: StationFeed
    private let replayer: Replayer
    private let core: Mutex<Core>
    /// The link, once made: `run` runs it.
    private let linkStarts: AsyncStream<BrokerLink>
    private let linkStarted: AsyncStream<BrokerLink>.Continuation
    private let replayRequests: AsyncStream<ReplayRequest>
    private let replaySubmitted: AsyncStream<ReplayRequest>.Continuation
    /// Rings when the window may have room (a PUBACK, a new session); one ring kept while nobody waits.
    private let rings: AsyncStream<Void>
    private let bell: AsyncStream<Void>.Continuation

    /// `saved`: the position `seqFile` holds, read (and its folder found writable) before the start.
    init(options: BridgeOptions, credentials: Credentials?, notifier: SystemdNotifier?, seqFile: AcknowledgedSeqFile, saved: UInt64) {
        self.options = options
        self.credentials = credentials
        self.notifier = notifier
        self.seqFile = seqFile
        core = Mutex(Core(rules: BridgeRules(options: options, seqFilePath: seqFile.path, saved: saved,
                                             windowCapacity: Bridge.windowCapacity)))
        feed = StationFeed(socketPath: options.socketPath, since: saved)
        replayer = Replayer(socketPath: options.socketPath)
        (linkStarts, linkStarted) = AsyncStream.makeStream(of: BrokerLink.self, bufferingPolicy: .bufferingNewest(1))
        (replayRequests, replaySubmitted) = AsyncStream.makeStream(of: ReplayRequest.self, bufferingPolicy: .unbounded)
        (rings, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let brokers = options.urls.map(\.description).joined(separator: ", then ")
        bridgeLog.notice("publishing to \(brokers) from seq \(saved + 1) (state in \(seqFile.path))")
    }

    /// Runs until cancelled, then leaves the broker cleanly and saves the acknowledged seq.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.tick() }
            group.addTask {
                await self.replayer.run(self.replayRequests, Replayer.Outlet(
                    publishEvent: { line, type in await self.publishWhenConnected({ $0.event(type) }, payload: line) },
                    publishAnswer: { await self.publishWhenConnected(\.replayAnswer, payload: $0.payload) },
                    started: { self.handle(.replayStarted($0)) },
                    republished: { self.handle(.replayRepublished) },
                    answered: { self.handle(.replayAnswered) }))
            }
            group.addTask {
                for await link in self.linkStarts {
                    await link.run()
                    return
                }
            }
            await group.next()
            group.cancelAll()
        }
        handle(.stopped)
    }

    // MARK: Carrying out the rules' effects

    /// Feeds `input` to the rules and carries out its effects; returns what they released for publishing.
    @discardableResult
    private func handle(_ input: BridgeInput) -> [ChipScanHold.Release] {
        let effects = core.withLock { $0.rules.handle(input, at: Self.now()) }
        return carryOut(effects)
    }

    /// Carries out every effect but the publishing of events, which is returned in order for the events task.
    private func carryOut(_ effects: [BridgeEffect]) -> [ChipScanHold.Release] {
        var releases: [ChipScanHold.Release] = []
        for effect in effects {
            switch effect {
            case .log(let severity, let text):
                bridgeLog.log(severity, text)
            case .systemdStatus(let line):
                notifier?.send("STATUS=\(line)")
            case .publishStatus(let payload):
                _ = publishOther(\.status, payload: payload, retain: true)
            case .askDaemonStatus:
                try? feed.send(Self.askStatus)
            case .startLink(let topics):
                startLink(topics)
            case .resend(let from):
                feed.restart(since: from)
            case .publish(let release):
                releases.append(release)
            case .answerReplay(let answer):
                _ = publishOther(\.replayAnswer, payload: answer.payload, retain: false)
            case .serveReplay(let request):
                replaySubmitted.yield(request)
            case .save(let seq):
                releases += handle(.saved(seq, failure: seqFile.save(seq)))
            }
        }
        return releases
    }

    private func startLink(_ topics: Topics) {
        var settings = BrokerSettings(addresses: options.urls, clientID: "sealtrust-mqtt-\(topics.station)", credentials: credentials,
                                      caFile: options.caFile, certificate: options.certificate, key: options.key,
                                      willTopic: topics.status, subscriptions: [topics.replay])
        settings.retainedWanted = false
        settings.subscriptionQoS = 0
        settings.firstVersion = options.mqttVersion
        let made = BrokerLink(settings: settings, observer: self)
        core.withLock { $0.link = made }
        linkStarted.yield(made)
    }

    /// The link and the station's topics, once both are there.
    private var linked: (link: BrokerLink, topics: Topics)? {
        core.withLock { core in
            guard let link = core.link, let topics = core.rules.topics else { return nil }
            return (link, topics)
        }
    }

    /// A message that is not an event (the status, a replay answer) on the accepted session, if any.
    private func publishOther(_ topic: (Topics) -> String, payload: String, retain: Bool) -> BrokerLink.Publication? {
        guard let (link, topics) = linked else { return nil }
        return link.publish(topic: topic(topics), payload: payload, retain: retain) { mid, session in
            self.core.withLock { $0.rules.recordOther(mid: mid, session: session) }
        }
    }

    // MARK: The daemon's events

    private func follow() async {
        for await update in feed {
            if await !publish(handle(.daemon(update))) { return }
        }
    }

    /// Publishes what the hold released, in order; false when stopping. After a resend the rest is dropped: the
    /// feed, followed again from the acknowledged seq, brings it again.
    private func publish(_ releases: [ChipScanHold.Release]) async -> Bool {
        for release in releases {
            switch release {
            case .event(let seq, let type, let line):
                switch await publish(line, type: type, seq: seq) {
                case .done: continue
                case .stopped: return false
                case .restarted:
                    core.withLock { $0.rules.restarted() }
                    return true
                }
            case .lost(let range):
                core.withLock { $0.rules.skip(through: range.upperBound) }
            }
        }
        return true
    }

    private enum Publishing {
        case done
        /// The feed follows the daemon again from the acknowledged seq.
        case restarted
        case stopped
    }

    /// Publishes one event once the window lets it.
    private func publish(_ line: String, type: MessageType, seq: UInt64) async -> Publishing {
        var ringing = rings.makeAsyncIterator()
        while !Task.isCancelled {
            let topic: String
            switch core.withLock({ $0.rules.admit(seq: seq, type: type) }) {
            case .wait:
                guard await ringing.next() != nil else { return .stopped }
                continue
            case .stale:
                return .done
            case .restart(let effects):
                _ = carryOut(effects)
                return .restarted
            case .publish(let admitted):
                topic = admitted
            }
            guard let link = core.withLock({ $0.link }) else { return .done }
            var recorded = false
            switch link.publish(topic: topic, payload: line, retain: false, register: { mid, session in
                recorded = core.withLock { $0.rules.recordEvent(seq: seq, mid: mid, session: session) }
            }) {
            case .queued:
                guard !recorded else { return .done }
                let resend = core.withLock { $0.rules.takeResend() }
                guard resend.isEmpty else {
                    _ = carryOut(resend)
                    return .restarted
                }
                return .done
            case .notConnected:
                // The session died a moment ago and the link has not told the rules yet: it will at once.
                do { try await Task.sleep(for: .milliseconds(10)) } catch { return .stopped }
            case .refused(let error):
                _ = carryOut(core.withLock { $0.rules.refused(seq: seq, type: type, error: "\(error)") })
                return .done
            }
        }
        return .stopped
    }

    // MARK: Ticks, replays

    private func tick() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.tickInterval) } catch { return }
            handle(.tick)
        }
    }

    /// A replayed event (its PUBACK moves nothing: the live events own the acked seq) or an answer, once the window has
    /// room for it (it takes room as the events do); false once stopping.
    private func publishWhenConnected(_ topic: (Topics) -> String, payload: String) async -> Bool {
        while !Task.isCancelled {
            if core.withLock({ $0.rules.hasRoomForOther }) {
                switch publishOther(topic, payload: payload, retain: false) {
                case .queued?:
                    return true
                case .refused(let error)?:
                    bridgeLog.error("cannot publish a replayed message: \(error)")
                    return true
                case .notConnected?, nil:
                    break
                }
            }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return false }
        }
        return false
    }

    // MARK: Clocks

    /// Seconds since the epoch: what an event's `at` is compared with.
    static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }

    private static func now() -> BridgeTime {
        BridgeTime(wall: wallClock(), monotonic: .now)
    }

    // MARK: BrokerObserver (the link's thread)

    func brokerConnected(session: Int, address: BrokerAddress, protocolVersion: Int32, receiveMaximum: Int) {
        let version = protocolVersion == Int32(MQTT_PROTOCOL_V5) ? "MQTT 5" : "MQTT 3.1.1"
        handle(.brokerConnected(session: session, address: address.description, version: version, receiveMaximum: receiveMaximum))
        bell.yield()
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {
        let refusal = reasonCode >= 0x80 ? "\(String(cString: mosquitto_reason_string(reasonCode))) (reason \(reasonCode))" : nil
        handle(.brokerAcknowledged(mid: mid, session: session, refusal: refusal))
        bell.yield()
    }

    func brokerUnavailable(reason: String, next: BrokerAddress, retryIn: Duration) {
        handle(.brokerUnavailable(reason: reason, next: next.description, retryIn: retryIn))
    }

    func brokerMessage(topic: String, payload: [UInt8], retained: Bool) {
        handle(.brokerMessage(topic: topic, payload: payload, retained: retained))
    }

    var mayLeave: Bool { core.withLock { $0.rules.nothingInFlight } }
}
