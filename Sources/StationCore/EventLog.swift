import JSONCore
import Logging
import ScanJournal
import StationWire
import Synchronization
import VerdictSocket

/// Makes each event durable in the journal, then publishes it: no client ever holds an event the journal could lose.
/// One writer at a time, the station's drain loop, which carries out one effect after another: so `seq` order is
/// publication order, with no lock held across the write, the fdatasync or the publication.
final class EventLog: Sendable {
    /// Why the journal refuses to record, from its first refusal until an append succeeds again.
    struct Refusal: Sendable {
        let since: String
        let detail: String
    }

    private let journal: Journal
    private let publisher: any EventPublisher
    private let logger: Logger
    private let clock: DaemonClock
    /// Read by `status` on the server's thread, never held across a journal call.
    private let currentRefusal = Mutex<Refusal?>(nil)

    init(journal: Journal, publisher: any EventPublisher, logger: Logger, clock: DaemonClock) {
        self.journal = journal
        self.publisher = publisher
        self.logger = logger
        self.clock = clock
    }

    /// The first step: `event`'s line written, not yet durable; nil when the journal refused it, and then nobody
    /// receives it. `room`: see `Journal.Room` (a scan keeps room for its verdict).
    func write(_ event: StationEvent, room: Journal.Room) -> WrittenEvent? {
        do {
            return try journal.write(type: event.type.rawValue, fields: event.fields, room: room)
        } catch {
            noteRefusal("\(error)", of: event,
                        consequence: "until it records again, scans are not verified (no API call) and `verify` is answered cannot_record")
            return nil
        }
    }

    /// The second step: makes `written` durable and publishes it; false when the journal refused it. `startedCall`:
    /// a call started on the written line, so the event is published even if its fdatasync failed.
    /// The log says when the journal starts refusing and when it records again, not every refused event.
    func commit(_ written: WrittenEvent, of event: StationEvent, requester: ClientID?, startedCall: Bool) -> Bool {
        do {
            try journal.commit(written, keepingIfUnsynced: startedCall)
            if let ended = currentRefusal.withLock({ $0.take() }) {
                logger.notice("the journal records again (it could not since \(ended.since): \(ended.detail))")
            }
        } catch let unsynced as UnsyncedAppend {
            noteRefusal("\(unsynced)", of: event, consequence: "the \(event.type.rawValue) was published, and may not survive a power cut")
        } catch {
            noteRefusal("\(error)", of: event,
                        consequence: "until it records again, scans are not verified (no API call) and `verify` is answered cannot_record")
            return false
        }
        publisher.publish(written.event, requester: requester)
        return true
    }

    private func noteRefusal(_ detail: String, of event: StationEvent, consequence: String) {
        let refusal = Refusal(since: clock.wall().text, detail: detail)
        let isNew = currentRefusal.withLock { current in
            defer { if current == nil { current = refusal } }
            return current == nil
        }
        if isNew {
            logger.error("the station cannot record: the journal refused a \(event.type.rawValue) event (\(detail)); \(consequence)")
        }
    }

    /// Answers a `verify` whose scan or verdict the journal refused.
    func refuseUnrecorded(_ what: String, requestID: JSON?, requester: ClientID) {
        let detail = refusal.map { "the station cannot record: \(what) (\($0.detail))" } ?? "the station cannot record: \(what)"
        publisher.refuse(requestID: requestID, requester: requester, .cannotRecord, detail)
    }

    /// Set while the journal refuses to record: `status` and the systemd status line say so.
    var refusal: Refusal? { currentRefusal.withLock { $0 } }

    /// The last event made durable, read without waiting for an fdatasync.
    var lastSeq: UInt64 { journal.lastSeq }

    /// See `Journal.keep(from:)`.
    func keep(from seq: UInt64?) {
        journal.keep(from: seq)
    }
}
