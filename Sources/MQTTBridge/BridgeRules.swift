import JSONCore
import POSIXSupport
import StationClient
import StationWire

/// The bridge's rules as a value: each input gives the effects to carry out, in their order, and nothing else.
///
/// The acknowledged seq (`PublishWindow`), the chip scans' hold (`ChipScanHold`), the status for systemd and the
/// broker, the replay requests that wait (`ReplayQueue`), the state file's bookkeeping and the bounded warnings live
/// here. `Bridge` carries the effects out: it reads the daemon, waits for the window's room, hands messages to
/// libmosquitto and writes the state file. A test feeds inputs and reads the effects, with no thread, socket, broker
/// or clock of its own.
struct BridgeRules: Sendable {
    /// The retained status (and the daemon's status fields in it) is refreshed every this many ticks.
    static let statusInterval: Int64 = 60
    /// The retained status follows a moving `acked_seq` every this many ticks.
    static let ackedStatusEvery: Int64 = 5

    /// What an event gets from the window.
    enum Admission: Equatable, Sendable {
        /// Hand it to libmosquitto on this topic now.
        case publish(topic: String)
        /// No session or no room: wait for a PUBACK or a new session.
        case wait
        /// Not the next seq (the daemon is followed again from an earlier one, which brings it in its place): drop it.
        case stale
        /// A session ended with events unacknowledged: these effects follow the daemon again, and the rest of what
        /// was released is dropped.
        case restart([BridgeEffect])
    }

    private let options: BridgeOptions
    private let seqFilePath: String
    private(set) var window: PublishWindow
    private var chipScans = ChipScanHold()
    private var status = BridgeStatus()
    private(set) var replays = ReplayQueue()
    /// The station's topics, once the daemon's `hello` named it (the link is started then).
    private(set) var topics: Topics?
    private var lastStatusLine = ""
    private var lastSaved: UInt64
    /// Why the last save failed, while saves fail: said once when it starts and once when it ends, not each second.
    private var saveFailure: Errno?
    /// The held scan's deadline that a tick last asked the daemon's status for (its answer wakes the hold).
    private var wokenFor: Int64?
    private var ticks: Int64 = 0
    private var lastPublishedAcknowledged: UInt64
    /// Refused and retained replay requests, which anyone on the broker can send at will: a line now and then.
    private var requestWarnings = LimitedLog()

    /// `saved`: the acknowledged seq the state file holds.
    init(options: BridgeOptions, seqFilePath: String, saved: UInt64, windowCapacity: Int) {
        self.options = options
        self.seqFilePath = seqFilePath
        window = PublishWindow(capacity: windowCapacity, acknowledgedSeq: saved)
        lastSaved = saved
        lastPublishedAcknowledged = saved
    }

    var acknowledgedSeq: UInt64 { window.acknowledgedSeq }

    /// The effects of `input`, which came at `now`.
    mutating func handle(_ input: BridgeInput, at now: BridgeTime) -> [BridgeEffect] {
        switch input {
        case .daemon(let update):
            return daemon(update, at: now)
        case .tick:
            return tick(at: now)
        case .saved(let seq, let failure):
            return saved(seq, failure: failure)
        case .brokerConnected(let session, let address, let version, let receiveMaximum):
            status.broker = "\(address) connected (\(version))"
            status.brokerOnline = true
            var effects = systemdStatus() + [.log(.notice, "connected to \(address) (\(version))")]
            window.sessionStarted(session, receiveMaximum: receiveMaximum)
            // At once, not when the daemon's next event comes: after a burst, none may come for hours.
            effects += takeResend()
            return effects + retainedStatus()
        case .brokerAcknowledged(let mid, let session, let refusal):
            guard let seq = window.acknowledge(mid: mid, session: session), let refusal else { return [] }
            return [.log(.error, "the broker refused event seq \(seq): \(refusal)")]
        case .brokerUnavailable(let reason, let next, let retryIn):
            window.sessionEnded()
            let then = options.urls.count > 1 ? "; \(next) next" : ""
            let text = "\(reason.printable)\(then); retry in \(Self.seconds(retryIn)) s"
            status.broker = text
            status.brokerOnline = false
            return systemdStatus() + [.log(.error, "broker: \(text)")]
        case .brokerMessage(let topic, let payload, let retained):
            return brokerMessage(topic: topic, payload: payload, retained: retained, at: now)
        case .replayStarted(let request):
            replays.started(request)
            return []
        case .replayRepublished:
            replays.republished()
            return []
        case .replayAnswered:
            replays.answered()
            return systemdStatus()
        case .stopped:
            return [.save(window.acknowledgedSeq), .systemdStatus("stopped; acked seq \(window.acknowledgedSeq)")]
        }
    }

    // MARK: The daemon's events

    private mutating func daemon(_ update: StationUpdate, at now: BridgeTime) -> [BridgeEffect] {
        var effects: [BridgeEffect] = []
        switch update {
        case .connected(let hello, let since):
            effects += startLink(station: hello.station)
            status.station = hello.station
            status.daemon = "connected"
            status.daemonOnline = true
            status.newestSeq = max(status.newestSeq, hello.lastSeq)
            effects += systemdStatus()
            effects.append(.log(.notice, "daemon of station \(hello.station.printable) connected at seq \(hello.lastSeq); reading from seq \(since + 1)"))
            effects.append(.askDaemonStatus)
        case .event(let event):
            guard let seq = event.seq else { return [] }
            status.newestSeq = max(status.newestSeq, seq)
            return chipScans.take(line: event.line, json: event.json, seq: seq, now: now.wall).map(BridgeEffect.publish)
        case .caughtUp:
            break
        case .lost(let range):
            return [.log(.error, "events \(range.lowerBound) to \(range.upperBound) were removed by the daemon's journal retention before they were published: they are lost to the broker")]
                + chipScans.take(lost: range, now: now.wall).map(BridgeEffect.publish)
        case .journalBehind(let asked, let newest):
            effects.append(.log(.error, "the daemon's journal ends at seq \(newest), below the acknowledged seq \(asked): it was replaced; publishing it from seq 1"))
            chipScans.reset()
            window.rebase(to: 0)
        case .answer(let message):
            guard message.type == .status, case .object(let members) = message.json else { return [] }
            status.daemonFields = members.filter { $0.0 != "type" && $0.0 != "id" }
            effects += retainedStatus()
        case .disconnected(let error, let retryIn):
            let text = "unreachable (\(error.description.printable); retry in \(Self.seconds(retryIn)) s)"
            status.daemon = text
            status.daemonOnline = false
            effects += systemdStatus()
            effects.append(.log(.warning, "daemon at \(options.socketPath): \(text)"))
        }
        // A held scan whose verdict can be waited for no longer (a tick asks the daemon's status, whose answer comes here).
        return effects + chipScans.release(now: now.wall).map(BridgeEffect.publish)
    }

    /// The topics, and the link's start, from the first `hello`; a later one naming another station changes nothing.
    private mutating func startLink(station: String) -> [BridgeEffect] {
        guard let topics else {
            let names = Topics(prefix: options.topicPrefix, station: station)
            topics = names
            return [.startLink(names)]
        }
        guard topics.station != Topics.level(station) else { return [] }
        return [.log(.warning, "the daemon now calls its station \(station.printable); restart sealtrust-mqtt to use it in topics")]
    }

    // MARK: Publishing (the runtime's events task)

    /// Whether event `seq` of `type` may be handed to libmosquitto now.
    mutating func admit(seq: UInt64, type: MessageType) -> Admission {
        switch window.admission(seq: seq) {
        case nil: return .wait
        case .stale?: return .stale
        case .resend(let from)?: return .restart(resend(from: from))
        case .publish?:
            guard let topics else { return .wait }
            return .publish(topic: topics.event(type))
        }
    }

    /// Event `seq` was handed to libmosquitto as `mid` on `session` (before its PUBACK can be taken); false when it
    /// cannot count, and a resend (`takeResend`) is due.
    mutating func recordEvent(seq: UInt64, mid: Int32, session: Int) -> Bool {
        window.record(seq: seq, mid: mid, session: session)
    }

    /// A message that is not an event (the status, a replayed event, an answer) was handed to libmosquitto.
    mutating func recordOther(mid: Int32, session: Int) {
        window.recordOther(mid: mid, session: session)
    }

    /// A message that is not an event may be handed over now.
    var hasRoomForOther: Bool { window.hasRoomForOther }

    /// Every event handed to the session is acknowledged: it may be left without sending any again.
    var nothingInFlight: Bool { window.inFlight == 0 }

    /// The resend that is due, if any: follow the daemon again from the acknowledged seq.
    mutating func takeResend() -> [BridgeEffect] {
        window.takeResend().map { resend(from: $0) } ?? []
    }

    /// Seqs the daemon's retention removed: nothing to wait for up to `seq`.
    mutating func skip(through seq: UInt64) {
        window.skip(through: seq)
    }

    /// libmosquitto refused event `seq` itself (too large for the broker, a topic it rejects): it is skipped.
    mutating func refused(seq: UInt64, type: MessageType, error: String) -> [BridgeEffect] {
        window.skip(through: seq)
        return [.log(.error, "cannot publish event seq \(seq) (\(type.name.printable)): \(error); it is skipped")]
    }

    /// The daemon is followed again from an earlier seq, which brings everything held again.
    mutating func restarted() {
        chipScans.reset()
    }

    private func resend(from: UInt64) -> [BridgeEffect] {
        [.log(.notice, "the broker session ended with events unacknowledged: publishing again from seq \(from + 1)"), .resend(from: from)]
    }

    // MARK: Replay requests

    private mutating func brokerMessage(topic: String, payload: [UInt8], retained: Bool, at now: BridgeTime) -> [BridgeEffect] {
        guard let topics, topic == topics.replay else { return [] }
        guard !retained else {
            // A retained request would be served again at every start and reconnect; the topic takes none.
            return requestWarning("a retained replay request was ignored: \(topics.replay.printable) takes none "
                                  + "(clear it with an empty retained message)", at: now)
        }
        switch replays.submit(payload: payload) {
        case .queued(let request):
            return [.serveReplay(request)]
        case .joined:
            return []
        case .refused(let answer):
            return requestWarning("a replay request was refused: \(answer.refusal ?? "")", at: now) + [.answerReplay(answer)]
        }
    }

    private mutating func requestWarning(_ line: String, at now: BridgeTime) -> [BridgeEffect] {
        requestWarnings.admit(line, at: now.monotonic).map { [.log(.warning, $0)] } ?? []
    }

    // MARK: Status, state file

    private mutating func tick(at now: BridgeTime) -> [BridgeEffect] {
        let acknowledged = window.acknowledgedSeq
        var effects: [BridgeEffect] = acknowledged != lastSaved ? [.save(acknowledged)] : []
        effects += systemdStatus()
        // A held scan past its deadline is released by the daemon's next update: its status answer, asked once per deadline.
        if let deadline = chipScans.deadline, now.wall >= deadline, wokenFor != deadline {
            wokenFor = deadline
            effects.append(.askDaemonStatus)
        }
        ticks += 1
        if ticks >= Self.statusInterval {
            ticks = 0
            effects.append(.askDaemonStatus)
            effects += retainedStatus()
        } else if acknowledged != lastPublishedAcknowledged, ticks % Self.ackedStatusEvery == 0 {
            // A consumer learns of events lost at the end of a burst from `acked_seq`: no later event shows that gap.
            lastPublishedAcknowledged = acknowledged
            effects += retainedStatus()
        }
        return effects
    }

    private mutating func saved(_ seq: UInt64, failure: Errno?) -> [BridgeEffect] {
        let before = saveFailure
        saveFailure = failure
        guard let failure else {
            lastSaved = seq
            return before == nil ? [] : [.log(.notice, "the acknowledged seq is saved in \(seqFilePath) again")]
        }
        guard failure != before else { return [] }
        return [.log(.error, "cannot save the acknowledged seq in \(seqFilePath): \(failure); a restart would publish again what was acknowledged since the last save")]
    }

    /// STATUS= for systemd, when it changed: at each change of state, and each tick for the lag.
    private mutating func systemdStatus() -> [BridgeEffect] {
        let line = status.line(acknowledged: window.acknowledgedSeq, replays: replays.progress)
        guard line != lastStatusLine else { return [] }
        lastStatusLine = line
        return [.systemdStatus(line)]
    }

    /// The retained status, once the link is there to take it.
    private func retainedStatus() -> [BridgeEffect] {
        guard topics != nil else { return [] }
        return [.publishStatus(status.payload(acknowledged: window.acknowledgedSeq, replays: replays.progress))]
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(Int((value * 10).rounded())).withDecimalPoint
    }
}

extension String {
    /// "123" tenths as "12.3".
    fileprivate var withDecimalPoint: String {
        count < 2 ? "0.\(self)" : "\(dropLast()).\(suffix(1))"
    }
}
