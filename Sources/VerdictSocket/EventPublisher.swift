import ScanJournal

/// Where the station core hands each event once the journal made it durable: the verdict socket, or a test.
public protocol EventPublisher: Sendable {
    /// `requester` gets the event whatever its `watch` says.
    func publish(_ event: JournaledEvent, requester: ClientID?)
}
