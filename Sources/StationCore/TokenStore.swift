import DaemonConfiguration
import Logging
import Synchronization

/// The bearer token for passport reads, read from a file and read again whenever the file changes.
///
/// The token itself never leaves this type except to the API client: it is never logged.
public final class TokenStore: Sendable {
    private struct State: Sendable {
        var path: String?
        var identity: NamedFile.Identity?
        var token: String?
        var lastProblem: String?
    }

    /// What `status` says of the token: never the token itself.
    public enum Presence: String, Sendable {
        case none, present, unreadable
    }

    private let state: Mutex<State>
    private let logger: Logger

    public init(path: String?, logger: Logger) {
        state = Mutex(State(path: path))
        self.logger = logger
    }

    /// Points at another file (after SIGHUP) and forgets what was read.
    public func use(path: String?) {
        state.withLock { $0 = State(path: path) }
    }

    /// Reads the file again now, whatever its identity (at start and on SIGHUP): a problem is logged, naming the path,
    /// before the first scan meets it.
    public func reload() {
        state.withLock { $0.identity = nil }
        _ = token()
    }

    /// `none` when no token file is configured or it is empty (a fresh install's); `unreadable` when it is missing or
    /// cannot be used.
    public var presence: Presence {
        let hasPath = state.withLock { $0.path != nil }
        guard hasPath else { return .none }
        if token() != nil { return .present }
        return state.withLock { $0.lastProblem == nil } ? .none : .unreadable
    }

    /// The current token, re-read when the file changed; nil when there is no usable token.
    public func token() -> String? {
        let (token, problem) = state.withLock { state -> (String?, String?) in
            guard let path = state.path else { return (nil, nil) }
            switch TokenFile.read(path, unless: state.identity) {
            case .unchanged:
                return (state.token, nil)
            case .token(let token, let identity):
                state = State(path: path, identity: identity, token: token, lastProblem: nil)
                return (token, nil)
            case .empty(let identity):
                state = State(path: path, identity: identity, token: nil, lastProblem: nil)
                return (nil, nil)
            case .problem(let problem, let identity):
                state.identity = identity
                state.token = nil
                return (nil, Self.report(problem, in: &state))
            }
        }
        if let problem { logger.warning(problem) }
        return token
    }

    /// A problem is logged once, not at every call.
    private static func report(_ problem: String, in state: inout State) -> String? {
        guard state.lastProblem != problem else { return nil }
        state.lastProblem = problem
        return problem
    }
}
