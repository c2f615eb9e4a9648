import Dispatch
import JSONCore
import ScanJournal
import StationWire
import VerdictSocket

/// Makes each event durable in the journal, then publishes it: in that order, one event at a time,
/// so that no client ever holds an event the journal could lose, and `seq` order is publication order.
final class EventRecorder: Sendable {
    private let journal: Journal
    private let server: VerdictServer
    private let logger: Logger
    private let queue = DispatchQueue(label: "sealtrust-scand.journal")

    init(journal: Journal, server: VerdictServer, logger: Logger) {
        self.journal = journal
        self.server = server
        self.logger = logger
    }

    /// Queues the event now (keeping the caller's order) and calls `done` once it is published,
    /// with nil when the journal refused it (then nobody receives it).
    func enqueue(_ event: StationEvent, requester: ClientID? = nil,
                 done: @escaping @Sendable (JournaledEvent?) -> Void = { _ in }) {
        queue.async { [journal, server, logger] in
            let type = event.type.rawValue
            do {
                let event = try journal.append(type: type, fields: event.fields)
                server.publish(event, requester: requester)
                done(event)
            } catch {
                logger.error("the journal refused a \(type) event, which is therefore not published: \(error)")
                done(nil)
            }
        }
    }

    @discardableResult
    func record(_ event: StationEvent, requester: ClientID? = nil) async -> JournaledEvent? {
        await withCheckedContinuation { continuation in
            enqueue(event, requester: requester) { continuation.resume(returning: $0) }
        }
    }

    /// Waits for every queued event to be written.
    func flush() {
        queue.sync {}
    }
}

