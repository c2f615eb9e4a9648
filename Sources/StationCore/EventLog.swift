import JSONCore
import Logging
import ScanJournal
import StationWire
import Synchronization
import VerdictSocket

/// Makes each event durable in the journal, then publishes it, under one lock: no client ever holds an event the
/// journal could lose, and `seq` order is publication order. The task that made the event writes it (no writer
/// task of its own: that would be one more hand-off on every scan's path).
final class EventLog: Sendable {
    /// Why the journal refuses to record, from its first refusal until an append succeeds again.
    struct Refusal: Sendable {
        let since: String
        let detail: String
    }

    private let journal: Journal
    private let publisher: any EventPublisher
    private let logger: Logger
    private let order = Mutex(())
    /// Apart from `order`, so that `status` never waits behind an append's fdatasync.
    private let currentRefusal = Mutex<Refusal?>(nil)

    init(journal: Journal, publisher: any EventPublisher, logger: Logger) {
        self.journal = journal
        self.publisher = publisher
        self.logger = logger
    }

    /// Journals and publishes `event`; its seq, or nil when the journal refused it, and then nobody receives it.
    /// The log says when the journal starts refusing and when it records again, not every refused event.
    /// `whenWritten`: see `Journal.append`; once it has run, the event is published even if its fdatasync failed.
    @discardableResult
    /// `room`: see `Journal.Room` (a scan keeps room for its verdict).
    func record(_ event: StationEvent, requester: ClientID? = nil, room: Journal.Room = .none,
                whenWritten: (() -> Void)? = nil) -> UInt64? {
        order.withLock { _ in
            let journaled: JournaledEvent
            do {
                journaled = try journal.append(type: event.type.rawValue, fields: event.fields, room: room, whenWritten: whenWritten)
                if let ended = currentRefusal.withLock({ $0.take() }) {
                    logger.notice("the journal records again (it could not since \(ended.since): \(ended.detail))")
                }
            } catch let unsynced as UnsyncedAppend {
                noteRefusal("\(unsynced)", of: event,
                            consequence: "the \(event.type.rawValue) was published, and may not survive a power cut")
                journaled = unsynced.event
            } catch {
                noteRefusal("\(error)", of: event,
                            consequence: "until it records again, scans are not verified (no API call) and `verify` is answered cannot_record")
                return nil
            }
            publisher.publish(journaled, requester: requester)
            return journaled.seq
        }
    }

    private func noteRefusal(_ detail: String, of event: StationEvent, consequence: String) {
        let refusal = Refusal(since: Timestamp.now().text, detail: detail)
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

    var lastSeq: UInt64 { journal.lastSeq }

    /// See `Journal.keep(from:)`.
    func keep(from seq: UInt64?) {
        journal.keep(from: seq)
    }
}
