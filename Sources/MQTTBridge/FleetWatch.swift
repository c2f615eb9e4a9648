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
    /// How often the gaps are looked at.
    static let gapCheckInterval: Duration = .milliseconds(500)

    /// How a station's events go out: its printed lines' formatter and its file.
    private struct Output {
        var formatter = EventFormatter()
        var file: StationFile?
    }

    private struct State {
        var watched = WatchedStations()
        var outputs: [String: Output] = [:]
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
    private let state = Mutex(State())
    private let totals = Mutex(Totals())
    private let link = Mutex<BrokerLink?>(nil)

    init(options: BridgeOptions, credentials: Credentials?) {
        var settings = BrokerSettings(addresses: options.urls, clientID: "sealtrust-mqtt-watch-\(getpid())", credentials: credentials,
                                      caFile: options.caFile, certificate: options.certificate, key: options.key,
                                      willTopic: nil, subscriptions: Topics.watched(prefix: options.topicPrefix))
        settings.firstVersion = options.mqttVersion
        self.settings = settings
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
        let repeats = state.withLock { $0.watched.repeats }
        bridgeLog.notice("\(done.delivered) events in order, \(repeats) repeats dropped, \(done.gone) gone, \(done.requests) replay requests")
    }

    // MARK: The broker's messages (the link's thread)

    func brokerMessage(topic: String, payload: [UInt8], retained: Bool) {
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard let (station, message) = WatchedStations.read(levels: levels, payload: payload) else { return }
        switch message {
        case .unreadableEvent:
            Self.print("\(station)  unreadable event on \(topic): \(String(decoding: payload.prefix(200), as: UTF8.self))".printable)
            return
        case .answer(_, let refusal?):
            bridgeLog.warning("station \(station.printable): the bridge refused a replay: \(refusal.printable)")
        default:
            break
        }
        // Printed and written outside the lock, formatted inside it (each station's formatter keeps its state).
        let ready = state.withLock { state -> [(String, [StationSequence.Delivery], [String], StationFile?)] in
            if !state.watched.contains(station) { open(station, in: &state) }
            return state.watched.take(message, of: station, at: .now).map { station, deliveries in
                let formatted = deliveries.map { state.outputs[station]!.formatter.text(of: $0) }
                return (station, deliveries, formatted, state.outputs[station]!.file)
            }
        }
        for (station, deliveries, formatted, file) in ready { write(station, deliveries, formatted, file) }
    }

    private func write(_ station: String, _ deliveries: [StationSequence.Delivery], _ formatted: [String], _ file: StationFile?) {
        for text in formatted { Self.print("\(station)  \(text)".printable) }
        for delivery in deliveries {
            do {
                try file?.append(delivery)
            } catch {
                bridgeLog.error("cannot write \(file?.path ?? station): \(error)")
                break
            }
        }
        totals.withLock { totals in
            for delivery in deliveries {
                if case .gone(let range) = delivery { totals.gone += range.upperBound - range.lowerBound + 1 } else { totals.delivered += 1 }
            }
        }
    }

    /// A station seen for the first time: printing only, the watch starts where it joins; writing its file, it starts
    /// from the station's first event, or after the file's last line.
    private func open(_ station: String, in state: inout State) {
        var output = Output()
        var sequence = StationSequence(resumingAfter: nil)
        if let outputDirectory {
            do {
                let (file, last) = try StationFile.open(directory: outputDirectory, level: station)
                output.file = file
                sequence = StationSequence(resumingAfter: last ?? 0)
            } catch {
                bridgeLog.error("cannot open the file of station \(station.printable) in \(outputDirectory): \(error); its events are only printed")
            }
        }
        state.outputs[station] = output
        state.watched.add(station, sequence)
    }

    // MARK: Gaps

    private func checkGaps() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.gapCheckInterval) } catch { return }
            let requests = state.withLock { $0.watched.dueRequests(at: .now) }
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

    func brokerConnected(session: Int, address: BrokerAddress, protocolVersion: Int32, receiveMaximum: Int) {
        bridgeLog.notice("watching \(Topics.watched(prefix: prefix).joined(separator: ", ")) on \(address)")
    }

    func brokerAcknowledged(mid: Int32, session: Int, reasonCode: Int32) {}

    /// The watch publishes only replay requests, which it asks again when unanswered.
    var mayLeave: Bool { true }

    func brokerUnavailable(reason: String, next: BrokerAddress, retryIn: Duration) {
        bridgeLog.error("broker: \(reason.printable); trying \(next) in \(retryIn.components.seconds) s")
    }

    /// Whole lines straight to stdout, so each is out at once even into a pipe.
    private static func print(_ line: String) {
        try? FileDescriptor.writeAll(1, (line + "\n").utf8)
    }
}

extension EventFormatter {
    /// A delivery as the watch prints it: the event as `sealtrust-scanctl watch` does, or the gone range in words.
    fileprivate mutating func text(of delivery: StationSequence.Delivery) -> String {
        switch delivery {
        case .event(_, let event):
            if let json = try? JSON.parse(event), let text = line(for: json) { return text }
            return event
        case .gone(let range):
            return "events \(range.lowerBound) to \(range.upperBound) are gone: the journal no longer holds them, or the wait for them was given up"
        }
    }
}
