import ScanJournal
import StationWire
import Synchronization
import VerdictSocket

/// Makes each event durable in the journal, then publishes it, under one lock: no client ever holds an event the
/// journal could lose, and `seq` order is publication order. The task that made the event writes it (no writer
/// task of its own: that would be one more hand-off on every scan's path).
final class EventLog: Sendable {
    private let journal: Journal
    private let publisher: any EventPublisher
    private let logger: Logger
    private let order = Mutex(())

    init(journal: Journal, publisher: any EventPublisher, logger: Logger) {
        self.journal = journal
        self.publisher = publisher
        self.logger = logger
    }

    /// Journals and publishes `event`; a journal that refuses it is logged, and then nobody receives it. `afterWrite`
    /// runs once the event is written, before its `fdatasync`; not at all when the journal refuses it.
    func record(_ event: StationEvent, requester: ClientID? = nil, afterWrite: () -> Void = {}) {
        order.withLock { _ in
            do {
                let journaled = try journal.append(type: event.type.rawValue, fields: event.fields, afterWrite: afterWrite)
                publisher.publish(journaled, requester: requester)
            } catch {
                logger.error("the journal refused a \(event.type.rawValue) event, which is therefore not published: \(error)")
            }
        }
    }

    var lastSeq: UInt64 { journal.lastSeq }
}
