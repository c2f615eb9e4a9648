import JSONCore
import ScanJournal
import StationWire

/// What the server asks of the daemon. Called on the server's thread: return quickly.
public protocol VerdictServerDelegate: AnyObject, Sendable {
    /// `version`, `station`, `sources`, `last_seq`, after the server's `type` and `protocol`.
    func helloFields() -> [(String, JSON)]
    /// `version`, `station`, `lang`, `uptime_s`, `sources`, `counters`, `last_api_error`, `token`, `last_seq`; the server adds `type`, `id` and `clients`.
    func statusFields() -> [(String, JSON)]
    /// A client's `verify`: journal its `scan` and `verdict` (with `request_id`) and publish them with `requester: client`.
    func verify(raw: String, requestID: JSON?, from client: ClientID)
    /// A client's `passport` (`requestID`: the command's `id`): the answer at once when it needs no read (a scan not
    /// remembered, an answer from memory), or nil, and then the answer (or an `error`) later, from another thread,
    /// to `client` alone through `EventPublisher.answer`.
    func passport(_ query: PassportQuery, requestID: JSON, from client: ClientID) -> JSON?
}
