import Glibc
import JSONCore
import Lifecycle
import POSIXSupport
import StationWire
import Synchronization

/// `sealtrust-mqtt watch`: every station's events from the broker, one line each, `STATION  <the line
/// sealtrust-scanctl watch prints>`, in seq order without repeats. A gap in a station's seqs (the broker lost events,
/// or the watch was away) is asked again on `<prefix>/<station>/replay` until the events come or the bridge answers
/// that they are gone; with `--output DIR` each station's lines also go to `DIR/<station>.jsonl` (`StationFile`).
final class FleetWatch: BrokerObserver, Service, Sendable {
    /// A request not answered within this (the bridge was offline, the broker lost it) is asked again, the wait
    /// doubling for the same range up to `longestWait`: a fleet's bridges busy after an outage are not asked the same
    /// thing again and again while their answers are on the way.
    static let askAgainAfter: Duration = .seconds(5)
    static let longestWait: Duration = .seconds(60)
    /// How often the gaps are looked at.
    static let gapCheckInterval: Duration = .milliseconds(500)
    /// What may wait behind gaps, all stations together (any topic level makes a station): past it, the station with
    /// the most waiting gives up its first gap (written as gone) and writes what arrived.
    static let waitingBytesLimit = 32 << 20

    private struct Station {
        var sequence: StationSequence
        var formatter = EventFormatter()
        var file: StationFile?
        var asked: (range: ClosedRange<UInt64>, at: ContinuousClock.Instant, wait: Duration)?
    }

    /// What a run did, said when it stops.
    private struct Totals {
        var delivered = 0
        var gone: UInt64 = 0
        var requests = 0
    }

    let name = "watch"
    private let settings: BrokerSettings
    private let prefix: String
    private let outputDirectory: String?
    private let stations = Mutex(Stations())

    private struct Stations {
        var all: [String: Station] = [:]
        /// The sum of the stations' `waitingBytes`.
        var waitingBytes = 0
    }
    private let totals = Mutex(Totals())
    private let link = Mutex<BrokerLink?>(nil)

    init(options: BridgeOptions, credentials: Credentials?) {
        settings = BrokerSettings(address: options.url!, clientID: "sealtrust-mqtt-watch-\(getpid())", credentials: credentials,
                                  caFile: options.caFile, certificate: options.certificate, key: options.key,
                                  willTopic: nil, subscriptions: Topics.watched(prefix: options.topicPrefix))
        prefix = options.topicPrefix
        outputDirectory = options.outputDirectory
    }

    /// Runs the link and the gap checks until cancelled, then says what it did.
    func run() async {
        let made = BrokerLink(settings: settings, observer: self)
        link.withLock { $0 = made }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await made.run() }
            group.addTask { await self.checkGaps() }
            await group.next()
            group.cancelAll()
        }
        let done = totals.withLock { $0 }
        let repeats = stations.withLock { $0.all.values.reduce(0) { $0 + $1.sequence.repeats } }
        bridgeLog.notice("\(done.delivered) events in order, \(repeats) repeats dropped, \(done.gone) gone, \(done.requests) replay requests")
    }

    // MARK: The broker's messages (the link's thread)

    func brokerMessage(topic: String, payload: [UInt8], retained: Bool) {
        // <prefix>/<station>/event/<type>, <prefix>/<station>/replay/answer, <prefix>/<station>/status
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 2 else { return }
        let station = String(levels[0])
        let json = try? JSON.parse(utf8: payload)
        switch (levels.count, levels[1], levels.last) {
        case (3, "event", _):
            guard let json, let seq = json["seq"]?.integerValue, seq > 0 else {
                Self.print("\(station)  unreadable event on \(topic): \(String(decoding: payload.prefix(200), as: UTF8.self))".printable)
                return
            }
            update(station) { $0.sequence.receive(seq: UInt64(seq), line: String(decoding: payload, as: UTF8.self)) }
        case (3, "replay", "answer"):
            guard let json else { return }
            let gone = json["gone"].flatMap { gone -> ClosedRange<UInt64>? in
                guard let from = gone["from"]?.integerValue, let to = gone["to"]?.integerValue, from >= 1, from <= to else { return nil }
                return UInt64(from)...UInt64(to)
            }
            if let refusal = json["error"]?.stringValue { bridgeLog.warning("station \(station.printable): the bridge refused a replay: \(refusal.printable)") }
            update(station) { state in
                guard let asked = state.asked else { return [] }
                // Asked again at the next check if the gap is still open: the answer comes after the events it sent.
                state.asked = (asked.range, ContinuousClock.now - asked.wait + .seconds(1), asked.wait)
                // Gone is believed only within what was asked (at most `ReplayRequest.largestRange` seqs): an answer
                // from anyone else that claims more cannot skip events the watch holds or will receive.
                guard let gone, gone.overlaps(asked.range) else { return [] }
                return state.sequence.gone(gone.clamped(to: asked.range))
            }
        case (2, "status", _):
            guard let acknowledged = json?["acked_seq"]?.integerValue, acknowledged > 0 else { return }
            update(station) { state in
                state.sequence.acknowledged(through: UInt64(acknowledged))
                return []
            }
        default:
            return
        }
    }

    /// What one station has now in order: printed and written outside the lock.
    private struct Output {
        let station: String
        let deliveries: [StationSequence.Delivery]
        let formatted: [String]
        let file: StationFile?
    }

    /// Runs `change` on the station's state (opening its file first), then prints and writes what is now in order; past
    /// `waitingBytesLimit` waiting in all, the stations that hold the most give up their first gap.
    private func update(_ station: String, _ change: (inout Station) -> [StationSequence.Delivery]) {
        let outputs = stations.withLock { stations -> [Output] in
            if stations.all[station] == nil { stations.all[station] = openStation(station) }
            let before = stations.all[station]!.sequence.waitingBytes
            let deliveries = change(&stations.all[station]!)
            var outputs = [Self.output(station, deliveries, waitedBefore: before, in: &stations)]
            while stations.waitingBytes > Self.waitingBytesLimit,
                  let fullest = stations.all.max(by: { $0.value.sequence.waitingBytes < $1.value.sequence.waitingBytes })?.key {
                let before = stations.all[fullest]!.sequence.waitingBytes
                let given = stations.all[fullest]!.sequence.giveUpFirstGap()
                if given.isEmpty { break }
                outputs.append(Self.output(fullest, given, waitedBefore: before, in: &stations))
            }
            return outputs
        }
        for output in outputs { write(output) }
    }

    /// What `station` delivered, formatted; the total that waits follows its change from `waitedBefore`.
    private static func output(_ station: String, _ deliveries: [StationSequence.Delivery], waitedBefore before: Int,
                               in stations: inout Stations) -> Output {
        stations.waitingBytes += stations.all[station]!.sequence.waitingBytes - before
        let formatted = deliveries.map { delivery -> String in
            switch delivery {
            case .event(_, let line):
                if let json = try? JSON.parse(line), let text = stations.all[station]!.formatter.line(for: json) { return text }
                return line
            case .gone(let range):
                return "events \(range.lowerBound) to \(range.upperBound) are gone: the journal no longer holds them, or the wait for them was given up"
            }
        }
        return Output(station: station, deliveries: deliveries, formatted: formatted, file: stations.all[station]!.file)
    }

    private func write(_ output: Output) {
        for text in output.formatted { Self.print("\(output.station)  \(text)".printable) }
        for delivery in output.deliveries {
            do {
                try output.file?.append(delivery)
            } catch {
                bridgeLog.error("cannot write \(output.file?.path ?? output.station): \(error)")
                break
            }
        }
        totals.withLock { totals in
            for delivery in output.deliveries {
                if case .gone(let range) = delivery { totals.gone += range.upperBound - range.lowerBound + 1 } else { totals.delivered += 1 }
            }
        }
    }

    private func openStation(_ station: String) -> Station {
        // Printing only, the watch starts where it joins; writing a station's file, it starts from the station's first event.
        guard let outputDirectory else { return Station(sequence: StationSequence(resumingAfter: nil)) }
        do {
            let (file, last) = try StationFile.open(directory: outputDirectory, level: station)
            return Station(sequence: StationSequence(resumingAfter: last ?? 0), file: file)
        } catch {
            bridgeLog.error("cannot open the file of station \(station.printable) in \(outputDirectory): \(error); its events are only printed")
            return Station(sequence: StationSequence(resumingAfter: nil))
        }
    }

    // MARK: Gaps

    private func checkGaps() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.gapCheckInterval) } catch { return }
            let now = ContinuousClock.now
            let requests = stations.withLock { stations -> [(String, ClosedRange<UInt64>)] in
                var due: [(String, ClosedRange<UInt64>)] = []
                for (station, state) in stations.all {
                    guard let missing = state.sequence.missing else { continue }
                    let range = missing.lowerBound...min(missing.upperBound, missing.lowerBound + ReplayRequest.largestRange - 1)
                    if let asked = state.asked, asked.range == range, now - asked.at < asked.wait { continue }
                    let wait = state.asked.map { $0.range == range ? min($0.wait * 2, Self.longestWait) : Self.askAgainAfter } ?? Self.askAgainAfter
                    stations.all[station]!.asked = (range, now, wait)
                    due.append((station, range))
                }
                return due
            }
            guard let link = link.withLock({ $0 }) else { continue }
            for (station, range) in requests {
                bridgeLog.notice("station \(station.printable): events \(range.lowerBound) to \(range.upperBound) missing; asking again")
                let topic = Topics(prefix: prefix, level: station).replay
                if case .queued = link.publish(topic: topic, payload: "{\"from\":\(range.lowerBound),\"to\":\(range.upperBound)}", retain: false) {
                    totals.withLock { $0.requests += 1 }
                }
            }
        }
    }

    func brokerConnected(session: Int, protocolVersion: Int32, receiveMaximum: Int) {
        bridgeLog.notice("watching \(Topics.watched(prefix: prefix).joined(separator: ", "))")
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {}

    func brokerUnavailable(reason: String, retryIn: Duration) {
        bridgeLog.error("broker: \(reason.printable); retrying in \(retryIn.components.seconds) s")
    }

    /// Whole lines straight to stdout, so each is out at once even into a pipe.
    private static func print(_ line: String) {
        try? FileDescriptor.writeAll(1, (line + "\n").utf8)
    }
}
