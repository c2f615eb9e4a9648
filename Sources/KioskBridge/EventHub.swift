import Synchronization

/// Every open event stream, fed with the daemon's journaled events in seq order, each at most once.
///
/// A stream that resumes (`Last-Event-ID`) holds live events back while its replay runs, then gets the replay,
/// then what was held beyond it: nothing lost or doubled at the seam. A stream of one lane (a page at `/?lane=`, or
/// any page of a bridge with `--lane`) gets that lane's journaled events only, and opens on what that lane's screen
/// shows.
public final class EventHub: Sendable {
    /// What a screen shows now, and until when.
    private typealias Showing = (frame: [UInt8], until: ContinuousClock.Instant)

    private struct Subscriber {
        let stream: EventStream
        /// nil: every lane's events, and the station's.
        let lane: String?
        var lastSentSeq: UInt64
        /// The hub's newest seq when the stream opened: what the hub gets after it is new to this stream.
        var liveAfter: UInt64
        /// Live events held while this subscriber's replay runs; nil once it is live.
        var held: [(seq: UInt64, frame: [UInt8])]?
        var heldBytes = 0
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 1
        var newestSeq: UInt64 = 0
        var online = false
        /// The language of the page's own words: `--lang`, else the daemon's.
        var language: KioskLanguage
        /// The event a page shows now and until when: what a page that opens gets first.
        var showing: Showing?
        /// The same for each lane's page.
        var laneShowing: [String: Showing] = [:]
    }

    /// A resuming stream that waits for more than this many live events, or more bytes than a stream may have
    /// waiting, is ended: its browser comes back. Every held list is a tail of the same live events, so all of
    /// them together hold at most that many bytes of frames.
    static let heldLimit = 4_096
    private let state: Mutex<State>
    /// The digest of the page served in each language (`KioskPages`), which every `station` event carries.
    private let pageVersions: [KioskLanguage: String]

    public init(language: KioskLanguage = .en, pageVersions: [KioskLanguage: String] = [:]) {
        state = Mutex(State(language: language))
        self.pageVersions = pageVersions
    }

    /// The language the page is served in now.
    public var language: KioskLanguage { state.withLock { $0.language } }

    /// The newest seq passed on: where the daemon's events resume after a reconnect.
    public var newestSeq: UInt64 { state.withLock { $0.newestSeq } }

    /// A new stream, live from now on, or held back for a replay when `resumeAfter` is given. A new page (no
    /// `resumeAfter`) first gets what a page open since shows now, with the time it has left on the screen.
    public func open(resumeAfter: UInt64?, lane: String? = nil, at now: ContinuousClock.Instant = .now) -> EventStream {
        state.withLock { state in
            defer { state.nextID += 1 }
            let stream = EventStream(id: state.nextID, resumeAfter: resumeAfter)
            var first = EventFrame.opening + EventFrame.station(online: state.online, language: state.language,
                                                                         page: pageVersions[state.language])
            if resumeAfter == nil, state.online, let showing = lane.map({ state.laneShowing[$0] }) ?? state.showing, showing.until > now {
                first += EventFrame.hold(remaining: showing.until - now) + showing.frame
            }
            stream.send(first)
            state.subscribers[stream.id] = Subscriber(stream: stream, lane: lane, lastSentSeq: resumeAfter ?? state.newestSeq,
                                                      liveAfter: state.newestSeq, held: resumeAfter == nil ? nil : [])
            return stream
        }
    }

    /// A journaled event from the daemon, in seq order, of `lane`'s source (nil: the station's), and what it does to
    /// the page's screen and to its lane's. `shown`: the event without the time it has left, for the pages that open
    /// while it is shown (default: `frame`).
    public func publish(seq: UInt64, frame: [UInt8], lane: String? = nil, screen: ScreenChange = .unchanged,
                        laneScreen: ScreenChange = .unchanged, shown: [UInt8]? = nil, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.newestSeq = max(state.newestSeq, seq)
            let showing = { (change: ScreenChange, current: Showing?) -> Showing? in
                switch change {
                case .unchanged: current
                case .shows(let duration): (shown ?? frame, now + duration)
                case .clears: nil
                }
            }
            state.showing = showing(screen, state.showing)
            if let lane { state.laneShowing[lane] = showing(laneScreen, state.laneShowing[lane]) }
            for (id, var subscriber) in state.subscribers {
                if subscriber.stream.isFinished {
                    state.subscribers[id] = nil
                } else if subscriber.lane != nil, subscriber.lane != lane {
                    continue
                } else if subscriber.held != nil {
                    subscriber.held!.append((seq, frame))
                    subscriber.heldBytes += frame.count
                    if subscriber.held!.count > Self.heldLimit || subscriber.heldBytes > EventStream.pendingLimit {
                        subscriber.stream.end()
                        state.subscribers[id] = nil
                    } else {
                        state.subscribers[id] = subscriber
                    }
                } else if seq > subscriber.lastSentSeq {
                    subscriber.lastSentSeq = seq
                    state.subscribers[id] = subscriber.stream.send(frame) ? subscriber : nil
                }
            }
        }
    }

    /// The replay for a resuming stream is in, up to `seam`, the journal's newest seq when it was asked: it is sent,
    /// then what was held beyond it, and the stream goes live. A stream that resumed at or beyond the seam gets
    /// nothing replayed and continues live from its request on, as the socket's `replay` does: everything the hub
    /// got after the stream opened is sent, held or still to come (the daemon may have journaled an event before
    /// the seam was read that the hub's feed brings only later).
    public func finishResume(_ stream: EventStream, replayed: [ReplayedEvent], seam: UInt64) {
        state.withLock { state in
            guard var subscriber = state.subscribers[stream.id] else { return }
            if subscriber.lastSentSeq >= seam {
                subscriber.lastSentSeq = subscriber.liveAfter
            }
            let wanted = replayed.filter { subscriber.lane == nil || $0.lane == subscriber.lane }.map { (seq: $0.seq, frame: $0.frame) }
            for event in wanted + (subscriber.held ?? []) where event.seq > subscriber.lastSentSeq {
                subscriber.lastSentSeq = event.seq
                guard stream.send(event.frame) else {
                    state.subscribers[stream.id] = nil
                    return
                }
            }
            subscriber.held = nil
            subscriber.heldBytes = 0
            state.subscribers[stream.id] = subscriber
        }
    }

    /// The replay could not be had: the stream ends, and the browser asks again with the same id.
    public func failResume(_ stream: EventStream) {
        state.withLock { state in
            state.subscribers[stream.id] = nil
        }
        stream.end()
    }

    /// The daemon's journal was replaced and now ends at `newest`: what it numbers from here on is new to everyone.
    public func rebase(to newest: UInt64) {
        state.withLock { state in
            state.newestSeq = newest
            for id in state.subscribers.keys {
                state.subscribers[id]?.lastSentSeq = newest
                state.subscribers[id]?.liveAfter = newest
            }
        }
    }

    /// Whether the daemon answers, and in which language the page speaks (nil: unchanged); every stream is told
    /// when either changes, and a page in another language loads itself again.
    public func setOnline(_ online: Bool, language: KioskLanguage? = nil) {
        broadcast { state in
            let language = language ?? state.language
            guard state.online != online || state.language != language else { return nil }
            state.online = online
            state.language = language
            // A page that lost the daemon shows "Station offline", then idle once it is back: so does a new one.
            if !online {
                state.showing = nil
                state.laneShowing = [:]
            }
            return EventFrame.station(online: online, language: language, page: pageVersions[language])
        }
    }

    /// Frees the connections of streams whose clients left while nothing was being sent.
    public func sweep() {
        state.withLock { state in
            for (id, subscriber) in state.subscribers {
                subscriber.stream.endIfClientLeft()
                if subscriber.stream.isFinished { state.subscribers[id] = nil }
            }
        }
    }

    public func keepAlive() {
        broadcast { _ in EventFrame.keepAlive }
    }

    private func broadcast(_ frame: (inout State) -> [UInt8]?) {
        state.withLock { state in
            guard let bytes = frame(&state) else { return }
            for (id, subscriber) in state.subscribers where subscriber.stream.isFinished || !subscriber.stream.send(bytes) {
                state.subscribers[id] = nil
            }
        }
    }
}

/// A journaled event read again for a page that resumes: its seq, its source's lane, and its frame.
public struct ReplayedEvent: Sendable {
    public let seq: UInt64
    public let lane: String?
    public let frame: [UInt8]

    public init(seq: UInt64, lane: String?, frame: [UInt8]) {
        self.seq = seq
        self.lane = lane
        self.frame = frame
    }
}
