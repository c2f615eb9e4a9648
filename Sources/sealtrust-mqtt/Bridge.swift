import CMosquitto
import Glibc
import JSONCore
import StationClient
import Synchronization
import SystemdSupport

/// Every journaled event of one station to the broker, in seq order, nothing lost.
///
/// Events are read through the daemon's `replay` from the acknowledged seq and
/// published at QoS 1 through a bounded window. The acknowledged seq advances only over
/// PUBACKs, is saved in the state directory at most once a second and on stop, and a
/// session that ends with events unacknowledged makes the bridge read them again from
/// the daemon: delivery is at least once, repeats come right after a reconnect.
final class Bridge: BrokerObserver, Sendable {
    static let windowCapacity = 1_000
    static let statusInterval: Duration = .seconds(60)
    static let saveInterval: Duration = .seconds(1)

    private let options: BridgeOptions
    private let credentials: Credentials?
    private let seqFile: AcknowledgedSeqFile
    private let notifier: SystemdNotifier?
    private let window: PublishWindow
    private let feed: StationFeed
    private let status = Mutex(BridgeStatus())
    private let link = Mutex<BrokerLink?>(nil)
    /// The link, once the daemon's `hello` named the station (its client id and topics): `run` runs it.
    private let linkStarts: AsyncStream<BrokerLink>
    private let linkStarted: AsyncStream<BrokerLink>.Continuation
    private let topics = Mutex<Topics?>(nil)
    private let lastStatusLine = Mutex("")

    init(options: BridgeOptions, credentials: Credentials?, notifier: SystemdNotifier?) throws(UsageError) {
        self.options = options
        self.credentials = credentials
        self.notifier = notifier
        seqFile = AcknowledgedSeqFile(directory: options.stateDirectory)
        let saved = try seqFile.load()
        window = PublishWindow(capacity: Bridge.windowCapacity, acknowledgedSeq: saved)
        feed = StationFeed(socketPath: options.socketPath, since: saved)
        (linkStarts, linkStarted) = AsyncStream.makeStream(of: BrokerLink.self, bufferingPolicy: .bufferingNewest(1))
        LogLine.notice("publishing to \(options.url!) from seq \(saved + 1) (state in \(seqFile.path))")
    }

    /// Runs until cancelled, then leaves the broker cleanly and saves the acknowledged seq.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.tick() }
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
                LogLine.notice("daemon of station \(hello.station.printable) connected at seq \(hello.lastSeq); reading from seq \(since + 1)")
                try? feed.send(StationCommand(.status, id: "sealtrust-mqtt-status"))
            case .event(let event):
                guard let seq = event.seq else { continue }
                status.withLock { $0.newestSeq = max($0.newestSeq, seq) }
                if await !publish(event, seq: seq) { return }
            case .caughtUp:
                break
            case .lost(let range):
                LogLine.error("events \(range.lowerBound) to \(range.upperBound) were removed by the daemon's journal retention before they were published: they are lost to the broker")
                window.skip(through: range.upperBound)
            case .journalBehind(let asked, let newest):
                LogLine.error("the daemon's journal ends at seq \(newest), below the acknowledged seq \(asked): it was replaced; publishing it from seq 1")
                window.rebase(to: 0)
            case .answer(let message):
                guard message.type == "status", case .object(let members) = message.json else { continue }
                status.withLock { $0.daemonFields = members.filter { $0.0 != "type" && $0.0 != "id" } }
                publishStatus()
            case .disconnected(let error, let retryIn):
                let text = "unreachable (\(error.description.printable); retry in \(Self.seconds(retryIn)) s)"
                status.withLock {
                    $0.daemon = text
                    $0.daemonOnline = false
                }
                tellSystemd()
                LogLine.warning("daemon at \(options.socketPath): \(text)")
            }
        }
    }

    /// Publishes one event once the window lets it; false when stopping.
    private func publish(_ event: StationMessage, seq: UInt64) async -> Bool {
        while true {
            switch await window.admit() {
            case .stopped:
                return false
            case .resend(let from):
                LogLine.notice("the broker session ended with events unacknowledged: publishing again from seq \(from + 1)")
                feed.restart(since: from)
                return true
            case .publish:
                guard let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }) else { return true }
                switch link.publish(topic: topics.event(event.type), payload: event.line, retain: false) {
                case .queued(let mid, let session):
                    window.record(seq: seq, mid: mid, session: session)
                    return true
                case .notConnected:
                    // The session died a moment ago and the link has not told the window yet: it will at once.
                    do { try await Task.sleep(for: .milliseconds(10)) } catch { return false }
                    continue
                case .refused(let error):
                    LogLine.error("cannot publish event seq \(seq) (\(event.type.printable)): \(error); it is skipped")
                    window.skip(through: seq)
                    return true
                }
            }
        }
    }

    private func startLink(station: String) {
        let started = link.withLock { current -> BrokerLink? in
            if let current {
                if current.settings.clientID != "sealtrust-mqtt-\(Topics.level(station))" {
                    LogLine.warning("the daemon now calls its station \(station.printable); restart sealtrust-mqtt to use it in topics")
                }
                return nil
            }
            let names = Topics(prefix: options.topicPrefix, station: station)
            topics.withLock { $0 = names }
            let settings = BrokerSettings(address: options.url!, clientID: "sealtrust-mqtt-\(names.station)", credentials: credentials,
                                          caFile: options.caFile, certificate: options.certificate, key: options.key,
                                          willTopic: names.status, subscription: nil)
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
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.saveInterval) } catch { return }
            let acknowledged = window.acknowledgedSeq
            if acknowledged != lastSaved {
                if save() { lastSaved = acknowledged }
            }
            tellSystemd()
            sinceStatus += Self.saveInterval
            if sinceStatus >= Self.statusInterval {
                sinceStatus = .zero
                try? feed.send(StationCommand(.status, id: "sealtrust-mqtt-status"))
                publishStatus()
            }
        }
    }

    /// STATUS= for systemd, sent when it changed: at each change of state and each second for the lag.
    private func tellSystemd() {
        let line = status.withLock { $0.line(acknowledged: window.acknowledgedSeq) }
        let changed = lastStatusLine.withLock { last -> Bool in
            defer { last = line }
            return last != line
        }
        if changed { notifier?.send("STATUS=\(line)") }
    }

    @discardableResult
    private func save() -> Bool {
        guard let failure = seqFile.save(window.acknowledgedSeq) else { return true }
        LogLine.error("cannot save the acknowledged seq in \(seqFile.path): \(String(cString: strerror(failure)))")
        return false
    }

    private func publishStatus() {
        guard let link = link.withLock({ $0 }), let topics = topics.withLock({ $0 }) else { return }
        let payload = status.withLock { $0.payload(acknowledged: window.acknowledgedSeq) }
        if case .queued(let mid, let session) = link.publish(topic: topics.status, payload: payload, retain: true) {
            window.recordOther(mid: mid, session: session)
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(Int((value * 10).rounded())).withDecimalPoint
    }

    // MARK: BrokerObserver (the link's thread)

    func brokerConnected(session: Int, protocolVersion: Int32) {
        let version = protocolVersion == Int32(MQTT_PROTOCOL_V5) ? "MQTT 5" : "MQTT 3.1.1"
        status.withLock {
            $0.broker = "\(options.url!) connected (\(version))"
            $0.brokerOnline = true
        }
        tellSystemd()
        LogLine.notice("connected to \(options.url!) (\(version))")
        window.sessionStarted(session)
        publishStatus()
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {
        let seq = window.acknowledge(mid: mid, session: session)
        if reasonCode >= 0x80, let seq {
            LogLine.error("the broker refused event seq \(seq): \(String(cString: mosquitto_reason_string(reasonCode))) (reason \(reasonCode))")
        }
    }

    func brokerUnavailable(reason: String, retryIn: Duration) {
        window.sessionEnded()
        let text = "\(reason.printable); retry in \(Self.seconds(retryIn)) s"
        status.withLock {
            $0.broker = text
            $0.brokerOnline = false
        }
        tellSystemd()
        LogLine.error("broker: \(text)")
    }

    func brokerMessage(topic: String, payload: [UInt8]) {}
}

extension String {
    /// "123" tenths as "12.3".
    fileprivate var withDecimalPoint: String {
        count < 2 ? "0.\(self)" : "\(dropLast()).\(suffix(1))"
    }
}
