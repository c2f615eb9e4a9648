import CMicroHTTPD
import Synchronization

/// An answer that needs the daemon (`/passport`): the request's connection is suspended until it is given, so the
/// server's one thread never waits on the daemon.
public final class DeferredAnswer: Sendable {
    public struct Document: Sendable {
        let status: Int
        let contentType: String
        let body: [UInt8]
    }

    /// A libmicrohttpd connection; only touched under `state`'s lock, and only while it is suspended.
    struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var document: Document?
        var suspended: Connection?
    }

    private let state = Mutex(State())

    public init() {}

    /// The first answer given is the one sent; it may come before the server suspends the request, or after.
    public func give(_ document: Document) {
        state.withLock { state in
            guard state.document == nil else { return }
            state.document = document
            if let connection = state.suspended.take() { MHD_resume_connection(connection.pointer) }
        }
    }

    public func give(status: Int, contentType: String, body: [UInt8]) {
        give(Document(status: status, contentType: contentType, body: body))
    }

    /// The answer, once given.
    var document: Document? { state.withLock { $0.document } }

    /// On the server's thread: the answer when it is there, else nil, having suspended `connection` until it is.
    func documentOrSuspend(_ connection: OpaquePointer) -> Document? {
        state.withLock { state in
            if let document = state.document { return document }
            state.suspended = Connection(pointer: connection)
            MHD_suspend_connection(connection)
            return nil
        }
    }
}
