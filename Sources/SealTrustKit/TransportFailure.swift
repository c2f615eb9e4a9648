import Logging
/// Why a request never completed, in the contract's six causes, with words an operator can act on.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// The API's host name did not resolve.
        case dns
        /// No connection to the API (refused, unreachable, no network).
        case connect
        /// The TLS handshake failed: certificate, host name, protocol.
        case tls
        /// The call's deadline passed.
        case timeout
        /// The proxy could not be reached or refused the tunnel.
        case proxy
        /// The connection broke or closed before the answer was whole.
        case reset
    }

    public let cause: Cause
    /// One line, control characters escaped: it may quote a server or a library.
    public let detail: String
    /// False only when not one byte of the request reached a connection: the API cannot have seen it, so a proof it
    /// carried is still unpresented and may go later (`on-api-outage = defer`). Anything else may have been read.
    public let requestWritten: Bool

    public init(_ cause: Cause, _ detail: String, requestWritten: Bool = true) {
        self.cause = cause
        // Nothing from outside reaches a log or a terminal with its control characters intact.
        self.detail = TerminalText.escaped(detail)
        self.requestWritten = requestWritten
    }

    /// The same failure, known to have come before the request's first byte (opening the connection).
    var beforeTheRequest: TransportFailure {
        TransportFailure(cause, detail, requestWritten: false)
    }

    public var description: String { "\(cause.rawValue): \(detail)" }
}
