import FoundationEssentials
import Glibc
import POSIXSupport
import Synchronization

/// The bearer token for passport reads, read from a file and read again whenever the file changes.
///
/// The token itself never leaves this type except to the API client: it is never logged.
public final class TokenStore: Sendable {
    private struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec

        static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    private struct State: @unchecked Sendable {
        var path: String?
        var identity: FileIdentity?
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

    /// The token file given by the options, or systemd's credential when there is none.
    public static func path(for options: DaemonOptions, environment: [String: String]) -> String? {
        if let tokenFile = options.tokenFile { return tokenFile }
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let credential = directory + "/sealtrust-token"
        return FileManager.default.fileExists(atPath: credential) ? credential : nil
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

    /// `none` when no token file is configured; `unreadable` when it is missing, unreadable or empty.
    public var presence: Presence {
        let hasPath = state.withLock { $0.path != nil }
        guard hasPath else { return .none }
        return token() == nil ? .unreadable : .present
    }

    /// A token file is a regular file of at most this many bytes: a bearer token is a few hundred, a file named by
    /// mistake is never read whole, and a device or a FIFO is refused with its reason.
    static let maximumBytes = 65_536

    /// The current token, re-read when the file changed; nil when there is no usable token.
    public func token() -> String? {
        let (token, problem) = state.withLock { state -> (String?, String?) in
            guard let path = state.path else { return (nil, nil) }
            let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            defer { if descriptor >= 0 { close(descriptor) } }
            var info = stat()
            guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                let problem = "cannot read the token file \(path): \(Errno.current)"
                state.identity = nil
                state.token = nil
                return (nil, Self.report(problem, in: &state))
            }
            let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: info.st_mtim)
            if identity == state.identity { return (state.token, nil) }
            state.identity = identity
            state.token = nil
            guard info.st_mode & S_IFMT == S_IFREG else {
                return (nil, Self.report("the token file \(path) is not a regular file", in: &state))
            }
            let bytes: [UInt8]
            do {
                bytes = try FileDescriptor.read(descriptor, upTo: Self.maximumBytes + 1)
            } catch {
                return (nil, Self.report("cannot read the token file \(path): \(error)", in: &state))
            }
            guard bytes.count <= Self.maximumBytes else {
                return (nil, Self.report("the token file \(path) is larger than \(Self.maximumBytes >> 10) KiB", in: &state))
            }
            let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
            guard let text = String(validating: content, as: UTF8.self) else {
                return (nil, Self.report("the token file \(path) is not UTF-8 text", in: &state))
            }
            let trimmed = text.trimmingWhitespace()
            state.token = trimmed.isEmpty ? nil : trimmed
            state.lastProblem = nil
            return (state.token, trimmed.isEmpty ? "the token file \(path) is empty" : nil)
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
