import JSONCore
import ScanJournal
import StationWire

/// Where the station core hands each event once the journal made it durable: the verdict socket, or a test.
public protocol EventPublisher: Sendable {
    /// `requester` gets the event whatever its `watch` says.
    func publish(_ event: JournaledEvent, requester: ClientID?)
    /// A `verify` that ends without a verdict (the station could not record it): `requester` gets an `error` answer
    /// with the command's `id` instead, and is owed no verdict for it any more.
    func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String)
    /// The answer to one of `requester`'s commands, given from another thread (`passport`): to it alone, never journaled.
    func answer(_ message: JSON, to requester: ClientID)
}
