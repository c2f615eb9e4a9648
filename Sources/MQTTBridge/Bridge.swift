import CMosquitto
import Glibc
import JSONCore
import Lifecycle
import POSIXSupport
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
final class Bridge: BrokerObserver, Service, Sendable {
    let name = "bridge"
    static let windowCapacity = BrokerSettings.sendMaximum
    static let statusInterval: Duration = .seconds(60)
    static let askStatus = ClientCommand(id: "sealtrust-mqtt-status", action: .status)
    static let saveInterval: Duration = .seconds(1)
    /// The retained status follows a moving `acked_seq` every this many seconds.
    static let ackedStatusEvery: Int64 = 5

    private let options: BridgeOptions
    private let credentials: Credentials?
    private let seqFile: AcknowledgedSeqFile
    private let notifier: SystemdNotifier?
    private let window: PublishWindow
    private let feed: StationFeed
    private let replayer: Replayer
    private let chipScans = Mutex(ChipScanHold())
    /// The held scan's deadline that `tick` last woke `follow` for.
    private let wokenFor = Mutex<Int64?>(nil)
    private let status = Mutex(BridgeStatus())
    private let link = Mutex<BrokerLink?>(nil)
    /// The link, once the daemon's `hello` named the station (its client id and topics): `run` runs it.
    private let linkStarts: AsyncStream<BrokerLink>
    private let linkStarted: AsyncStream<BrokerLink>.Continuation
    private let topics = Mutex<Topics?>(nil)
    private let lastStatusLine = Mutex("")
    /// Why the last save failed, while saves fail: said once when it starts and once when it ends, not each second.
    private let saveFailure = Mutex<Errno?>(nil)
    /// Refused and retained replay requests, which anyone on the broker can send at will: a line now and then.
    private let requestWarnings = LimitedLog()

    /// `saved`: the position `seqFile` holds, read (and its folder found writable) before the start.
    init(options: BridgeOptions, credentials: Credentials?, notifier: SystemdNotifier?, seqFile: AcknowledgedSeqFile, saved: UInt64) {
        self.options = options
        self.credentials = credentials
        self.notifier = notifier
        self.seqFile = seqFile
        window = PublishWindow(capacity: Bridge.windowCapacity, acknowledgedSeq: saved)
        feed = StationFeed(socketPath: options.socketPath, since: saved)
        replayer = Replayer(socketPath: options.socketPath)
        (linkStarts, linkStarted) = AsyncStream.makeStream(of: BrokerLink.self, bufferingPolicy: .bufferingNewest(1))
        let brokers = options.urls.map(\.description).joined(separator: ", then ")
        bridgeLog.notice("publishing to \(brokers) from seq \(saved + 1) (state in \(seqFile.path))")
    }

    /// Runs until cancelled, then leaves the broker cleanly and saves the acknowledged seq.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.tick() }
            group.addTask {
                await self.replayer.run(Replayer.Outlet(publishEvent: { await self.republish($0, type: $1) }, publishAnswer: { await self.answer($0) }))
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
        save()
        notifier?.send("STATUS=stopped; acked seq \(window.acknowledgedSeq)")
    }

    // MARK: The daemon's events

    private func follow() async {
        for await update in feed {
            let now = Self.wallClock()
            switch update {
            case .connected(let hello, let since):
                startLink(station: hello.station)
                status.withLock {
                    $0.station = hello.station
                    $0.daemon = "connected"
                    $0.daemonOnline = true
                    $0.newestSeq = max($0.newestSeq, hello.lastSeq)
                }
                tellSystemd()
                bridgeLog.notice("daemon of station \(hello.station.printable) connected at seq \(hello.lastSeq); reading from seq \(since + 1)")
                try? feed.send(Self.askStatus)
            case .event(let event):
                guard let seq = event.seq else { continue }
                status.withLock { $0.newestSeq = max($0.newestSeq, seq) }
                if await !publish(chipScans.withLock { $0.take(line: event.line, json: event.json, seq: seq, now: now) }) { return }
                continue
            case .caughtUp:
                break
            case .lost(let range):
                bridgeLog.error("events \(range.lowerBound) to \(range.upperBound) were removed by the daemon's journal retention before they were published: they are lost to the broker")
                if await !publish(chipScans.withLock { $0.take(lost: range, now: now) }) { return }
                continue
            case .journalBehind(let asked, let newest):
                bridgeLog.error("the daemon's journal ends at seq \(newest), below the acknowledged seq \(asked): it was replaced; publishing it from seq 1")
                chipScans.withLock { $0.reset() }
                window.rebase(to: 0)
            case .answer(let message):
                guard message.type == .status, case .object(let members) = message.json else { continue }
                status.withLock { $0.daemonFields = members.filter { $0.0 != "type" && $0.0 != "id" } }
                publishStatus()
            case .disconnected(let error, let retryIn):
                let text = "unreachable (\(error.description.printable); retry in \(Self.seconds(retryIn)) s)"
                status.withLock {
                    $0.daemon = text
                    $0.daemonOnline = false
                }
                tellSystemd()
                bridgeLog.warning("daemon at \(options.socketPath): \(text)")
            }
            // A held scan whose verdict can be waited for no longer (`tick` wakes this loop for it).
            if await !publish(chipScans.withLock { $0.release(now: now) }) { return }
        }
    }

    /// Publishes what the hold released, in order; false when stopping. After a resend the rest is dropped: the
    /// feed, followed again from the acknowledged seq, brings it again.
    private func publish(_ releases: [ChipScanHold.Release]) async -> Bool {
        for release in releases {
            let published: Publishing
            switch release {
            case .event(let seq, let type, let line):
                published = await publish(line, type: type, seq: seq)
            case .lost(let range):
                window.skip(through: range.upperBound)
                published = .done
            }
            switch published {
            case .done: continue
            case .stopped: return false
            case .restarted:
                chipScans.withLock { $0.reset() }
                return true
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
        while true {
            switch await window.admit(seq: seq) {
            case .stopped:
                return .stopped
            case .resend(let from):
                resend(from: from)
                return .restarted
            case .stale:
                return .done
            case .publish:
                guard let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }) else { return .done }
                var recorded = false
                switch link.publish(topic: topics.event(type), payload: line, retain: false,
                                    register: { mid, session in recorded = window.record(seq: seq, mid: mid, session: session) }) {
                case .queued:
                    if !recorded, let from = window.takeResend() {
                        resend(from: from)
                        return .restarted
                    }
                    return .done
                case .notConnected:
                    // The session died a moment ago and the link has not told the window yet: it will at once.
                    do { try await Task.sleep(for: .milliseconds(10)) } catch { return .stopped }
                    continue
                case .refused(let error):
                    bridgeLog.error("cannot publish event seq \(seq) (\(type.name.printable)): \(error); it is skipped")
                    window.skip(through: seq)
                    return .done
                }
            }
        }
    }

    /// Seconds since the epoch: what an event's `at` is compared with.
    static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }

    /// Follows the daemon again from `from`: what the broker did not acknowledge is read and published again.
    private func resend(from: UInt64) {
        bridgeLog.notice("the broker session ended with events unacknowledged: publishing again from seq \(from + 1)")
        feed.restart(since: from)
    }

    private func startLink(station: String) {
        let started = link.withLock { current -> BrokerLink? in
            if let current {
                if current.settings.clientID != "sealtrust-mqtt-\(Topics.level(station))" {
                    bridgeLog.warning("the daemon now calls its station \(station.printable); restart sealtrust-mqtt to use it in topics")
                }
                return nil
            }
            let names = Topics(prefix: options.topicPrefix, station: station)
            topics.withLock { $0 = names }
            var settings = BrokerSettings(addresses: options.urls, clientID: "sealtrust-mqtt-\(names.station)", credentials: credentials,
                                          caFile: options.caFile, certificate: options.certificate, key: options.key,
                                          willTopic: names.status, subscriptions: [names.replay])
            settings.retainedWanted = false
            settings.subscriptionQoS = 0
            settings.firstVersion = options.mqttVersion
            let made = BrokerLink(settings: settings, observer: self)
            current = made
            return made
        }
        if let started { linkStarted.yield(started) }
    }

    // MARK: Status, state file

    private func tick() async {
        var lastSaved = window.acknowledgedSeq
        var sinceStatus: Duration = .zero
        var lastPublished = window.acknowledgedSeq
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.saveInterval) } catch { return }
            let acknowledged = window.acknowledgedSeq
            if acknowledged != lastSaved {
                if save() { lastSaved = acknowledged }
            }
            tellSystemd()
            wakeForHeldScan()
            sinceStatus += Self.saveInterval
            if sinceStatus >= Self.statusInterval {
                sinceStatus = .zero
                try? feed.send(Self.askStatus)
                publishStatus()
            } else if acknowledged != lastPublished, sinceStatus.components.seconds % Self.ackedStatusEvery == 0 {
                // A consumer learns of events lost at the end of a burst from `acked_seq`: no later event shows that gap.
                lastPublished = acknowledged
                publishStatus()
            }
        }
    }

    /// A held scan past its deadline is released by `follow`, which waits for the daemon: the daemon's answer to a
    /// status request wakes it, once per deadline.
    private func wakeForHeldScan() {
        guard let deadline = chipScans.withLock({ $0.deadline }), Self.wallClock() >= deadline else { return }
        let first = wokenFor.withLock { woken in
            defer { woken = deadline }
            return woken != deadline
        }
        if first { try? feed.send(Self.askStatus) }
    }

    /// STATUS= for systemd, sent when it changed: at each change of state and each second for the lag.
    private func tellSystemd() {
        let replays = replayer.progress
        let line = status.withLock { $0.line(acknowledged: window.acknowledgedSeq, replays: replays) }
        let changed = lastStatusLine.withLock { last -> Bool in
            defer { last = line }
            return last != line
        }
        if changed { notifier?.send("STATUS=\(line)") }
    }

    @discardableResult
    private func save() -> Bool {
        let failure = seqFile.save(window.acknowledgedSeq)
        let before = saveFailure.withLock { last in
            defer { last = failure }
            return last
        }
        if let failure, failure != before {
            bridgeLog.error("cannot save the acknowledged seq in \(seqFile.path): \(failure); a restart would publish again what was acknowledged since the last save")
        } else if failure == nil, before != nil {
            bridgeLog.notice("the acknowledged seq is saved in \(seqFile.path) again")
        }
        return failure == nil
    }

    private func publishStatus() {
        guard let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }) else { return }
        let replays = replayer.progress
        let payload = status.withLock { $0.payload(acknowledged: window.acknowledgedSeq, replays: replays) }
        _ = link.publish(topic: topics.status, payload: payload, retain: true, register: window.recordOther)
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(Int((value * 10).rounded())).withDecimalPoint
    }

    // MARK: BrokerObserver (the link's thread)

    func brokerConnected(session: Int, address: BrokerAddress, protocolVersion: Int32, receiveMaximum: Int) {
        let version = protocolVersion == Int32(MQTT_PROTOCOL_V5) ? "MQTT 5" : "MQTT 3.1.1"
        status.withLock {
            $0.broker = "\(address) connected (\(version))"
            $0.brokerOnline = true
        }
        tellSystemd()
        bridgeLog.notice("connected to \(address) (\(version))")
        window.sessionStarted(session, receiveMaximum: receiveMaximum)
        // At once, not when the daemon's next event comes: after a burst, none may come for hours.
        if let from = window.takeResend() { resend(from: from) }
        publishStatus()
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {
        let seq = window.acknowledge(mid: mid, session: session)
        if reasonCode >= 0x80, let seq {
            bridgeLog.error("the broker refused event seq \(seq): \(String(cString: mosquitto_reason_string(reasonCode))) (reason \(reasonCode))")
        }
    }

    func brokerUnavailable(reason: String, next: BrokerAddress, retryIn: Duration) {
        window.sessionEnded()
        let then = options.urls.count > 1 ? "; \(next) next" : ""
        let text = "\(reason.printable)\(then); retry in \(Self.seconds(retryIn)) s"
        status.withLock {
            $0.broker = text
            $0.brokerOnline = false
        }
        tellSystemd()
        bridgeLog.error("broker: \(text)")
    }

    func brokerMessage(topic: String, payload: [UInt8], retained: Bool) {
        guard let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }), topic == topics.replay else { return }
        guard !retained else {
            // A retained request would be served again at every start and reconnect; the topic takes none.
            if let line = requestWarnings.admit("a retained replay request was ignored: \(topics.replay.printable) takes none "
                                                + "(clear it with an empty retained message)") {
                bridgeLog.warning(line)
            }
            return
        }
        if let refusal = replayer.submit(payload: payload) {
            if let line = requestWarnings.admit("a replay request was refused: \(refusal.refusal ?? "")") { bridgeLog.warning(line) }
            _ = link.publish(topic: topics.replayAnswer, payload: refusal.payload, retain: false, register: window.recordOther)
        }
    }

    // MARK: Replays (the replayer's task)

    /// An event again, on its usual topic with its usual bytes; its PUBACK moves nothing (the live events own the acked seq).
    private func republish(_ line: String, type: MessageType) async -> Bool {
        await publishWhenConnected { topics in (topics.event(type), line) }
    }

    private func answer(_ answer: ReplayAnswer) async -> Bool {
        tellSystemd()
        return await publishWhenConnected { topics in (topics.replayAnswer, answer.payload) }
    }

    /// A replayed event or an answer, once the window has room for it (it takes room as the events do).
    private func publishWhenConnected(_ message: (Topics) -> (topic: String, payload: String)) async -> Bool {
        while await window.admitOther() {
            if let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }) {
                let (topic, payload) = message(topics)
                switch link.publish(topic: topic, payload: payload, retain: false, register: window.recordOther) {
                case .queued:
                    return true
                case .refused(let error):
                    bridgeLog.error("cannot publish a replayed message: \(error)")
                    return true
                case .notConnected:
                    break
                }
            }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { return false }
        }
        return false
    }
}

extension String {
    /// "123" tenths as "12.3".
    fileprivate var withDecimalPoint: String {
        count < 2 ? "0.\(self)" : "\(dropLast()).\(suffix(1))"
    }
}
