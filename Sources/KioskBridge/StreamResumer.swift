import StationClient

/// Brings a resuming stream the events it missed: a connection of its own asks `replay` from the
/// stream's `Last-Event-ID`, reads up to the seam, and hands them to the hub. The seam is the newest seq the
/// `hello` named, or the `ack` with `replayed` where the daemon sends one; what came later the hub holds.
public struct StreamResumer: Sendable {
    let socketPath: String
    let hub: EventHub
    let log: KioskLog
    static let quietID = "kiosk-quiet"
    static let replayID = "kiosk-resume"
    /// A replay that takes longer is given up; the browser asks again.
    static let timeLimit = Duration.seconds(10)

    public init(socketPath: String, hub: EventHub, log: KioskLog) {
        self.socketPath = socketPath
        self.hub = hub
        self.log = log
    }

    public func resume(_ stream: EventStream) {
        guard let since = stream.resumeAfter else { return }
        Task {
            let replayed = await withTaskGroup(of: [(seq: UInt64, frame: [UInt8])]?.self) { group in
                group.addTask { await replay(since: since) }
                group.addTask {
                    try? await Task.sleep(for: Self.timeLimit)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let replayed {
                hub.finishResume(stream, replayed: replayed)
            } else {
                hub.failResume(stream)
            }
        }
    }

    /// The journaled events after `since`; nil when the daemon could not be asked.
    private func replay(since: UInt64) async -> [(seq: UInt64, frame: [UInt8])]? {
        guard let connection = try? await StationConnection.connect(path: socketPath) else { return nil }
        defer { connection.close() }
        let seam = connection.hello.lastSeq
        guard since < seam else { return [] }
        // Live events are not wanted here: the hub has them. Replayed events are the answer to `replay`, never filtered.
        guard (try? connection.send(StationCommand(.watch([]), id: Self.quietID))) != nil else { return nil }
        var quiet = false
        var events: [(seq: UInt64, frame: [UInt8])] = []
        while let message = await connection.next() {
            if !quiet {
                quiet = message.type == "ack" && message.id == Self.quietID
                if quiet, (try? connection.send(StationCommand(.replay(since: since), id: Self.replayID))) == nil { return nil }
                continue
            }
            if let seq = message.seq {
                events.append((seq, EventFrame.journaled(seq: seq, type: message.type, line: message.line)))
                // A page away for long gets the newest events only; memory stays bounded.
                if events.count >= 2 * EventHub.heldLimit { events.removeFirst(EventHub.heldLimit) }
                if seq >= seam { return newest(events, since: since) }
            } else if message.id == Self.replayID {
                if message.type == "error", message.code == "not_available" {
                    log.warning("a page resumed after event \(since), which the daemon's journal no longer holds: it continues live")
                    return events
                }
                if message.type == "ack" { return newest(events, since: since) }
            }
        }
        return nil
    }

    private func newest(_ events: [(seq: UInt64, frame: [UInt8])], since: UInt64) -> [(seq: UInt64, frame: [UInt8])] {
        if events.count > EventHub.heldLimit {
            log.warning("a page resumed after event \(since): only the newest \(EventHub.heldLimit) events are sent again")
        }
        return Array(events.suffix(EventHub.heldLimit))
    }
}
