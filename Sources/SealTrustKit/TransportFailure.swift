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

    public init(_ cause: Cause, _ detail: String) {
        self.cause = cause
        // Nothing from outside reaches a log or a terminal with its control characters intact.
        self.detail = TerminalText.escaped(detail)
    }

    public var description: String { "\(cause.rawValue): \(detail)" }
}
