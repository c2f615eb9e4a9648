import Foundation
import Glibc
import Synchronization

/// A program a test or benchmark starts: commands on its stdin, reports on its stdout, read by lines; or its stdout
/// and stderr in one file, for a server such as mosquitto that is only watched; or each in a file, for a service
/// (`init(service:)`).
///
/// Spawned with every signal unblocked and at its default (a child inherits the mask of the thread that spawns it,
/// and the test runner's threads block SIGTERM: mosquitto would then ignore the SIGTERM that makes it save its
/// sessions). Its stdin is a pipe only this side holds: when the test process dies, the child reads end of file,
/// and the tools exit on it. With `.lines` its stderr is this process's.
public final class ChildProcess: Sendable {
    /// What the child printed so far; shared with the thread that reads its stdout.
    private final class PrintedLines: Sendable {
        struct Lines {
            var lines: [String] = []
            var ended = false
        }

        let state = Mutex(Lines())

        func withLock<R>(_ body: (inout Lines) -> R) -> R {
            state.withLock { body(&$0) }
        }
    }

    /// Where the child's stdout and stderr go.
    public enum Output: Sendable {
        /// Stdout read by lines (`lines`); stderr is this process's.
        case lines
        /// Both appended to this file.
        case file(String)
        /// Each in a file of a scratch folder the child's value owns (`standardOutput`, `standardError`).
        case files
    }

    public let pid: pid_t
    public let name: String
    /// The file that takes the child's stdout and stderr, when one was given.
    public let outputPath: String?
    /// The folder of `standardOutput` and `standardError` with `.files`; removed with this value.
    private let filesDirectory: String?
    private let output = PrintedLines()
    /// The write end of the child's stdin; nil once closed.
    private let input: Mutex<Int32?>
    /// The exit status once reaped: after that the pid may belong to someone else.
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable`; `environment` replaces this process's own when given; `passing` becomes the child's
    /// descriptor 3, as a socket unit passes its socket.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                output: Output = .lines, passing: Int32? = nil) throws {
        // Socket pairs rather than pipes: Glibc's module does not export pipe2, and close-on-exec must be set at
        // creation, or a child spawned meanwhile by another thread would keep our end open.
        let toChild = try Self.channel()
        let fromChild: [Int32]
        do {
            fromChild = try Self.channel()
        } catch {
            toChild.forEach { close($0) }
            throw error
        }
        defer {
            close(toChild[0])
            close(fromChild[1])
        }

        // dup2 onto the same number would keep close-on-exec set: start from a descriptor that is surely not 3.
        let passed = try passing.map { descriptor in
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
            guard copy >= 0 else { throw HarnessError.failed("fcntl F_DUPFD_CLOEXEC") }
            return copy
        }
        defer { passed.map { _ = close($0) } }
        var filesDirectory: String?
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        switch output {
        case .lines:
            posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .files:
            let directory = try makeScratchDirectory("sealtrust-child")
            filesDirectory = directory
            posix_spawn_file_actions_addopen(&actions, 1, directory + "/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, directory + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // Last: a descriptor the actions above read may be number 3.
        if let passed { posix_spawn_file_actions_adddup2(&actions, passed, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var nothingBlocked = sigset_t()
        sigemptyset(&nothingBlocked)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &nothingBlocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = envp.map { posix_spawn(&child, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            filesDirectory.map { try? FileManager.default.removeItem(atPath: $0) }
            throw HarnessError("posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        Glibc.signal(SIGPIPE, SIG_IGN)  // a child that died must fail the test, not kill the runner
        pid = child
        if case .file(let path) = output { outputPath = path } else { outputPath = nil }
        self.filesDirectory = filesDirectory
        // An interpreter's child is known by its script.
        let program = executable.hasSuffix("python3") || executable.hasSuffix("sh") ? arguments.first ?? executable : executable
        name = URL(fileURLWithPath: program).lastPathComponent
        input = Mutex(toChild[1])
        collect(fromChild[0])
    }

    deinit {
        closeInput()
        if exitStatus.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        filesDirectory.map { try? FileManager.default.removeItem(atPath: $0) }
    }

    /// Every line the child printed so far, without its newline (none when `outputPath` takes its output).
    public var lines: [String] { output.withLock { $0.lines } }

    /// Everything the child printed so far: the file's text with `outputPath`, else `lines`.
    public var printed: String {
        guard let outputPath else { return lines.joined(separator: "\n") }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// What the child printed on stdout so far, with `.files`.
    public var standardOutput: String { printedFile("stdout") }

    /// What the child printed on stderr so far, with `.files`.
    public var standardError: String { printedFile("stderr") }

    private func printedFile(_ name: String) -> String {
        filesDirectory.flatMap { try? String(contentsOfFile: $0 + "/" + name, encoding: .utf8) } ?? ""
    }

    /// Sends one line to the child's stdin.
    public func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        try input.withLock { descriptor in
            guard let descriptor else { throw HarnessError("\(name) (pid \(pid)): its stdin is closed") }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw HarnessError("\(name) (pid \(pid)) no longer takes commands: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// Closes the child's stdin: the tools take it as the order to end.
    public func closeInput() {
        input.withLock { descriptor in
            if let open = descriptor {
                close(open)
                descriptor = nil
            }
        }
    }

    /// The first line after the first `skip` ones that `matches`, blocking up to `timeout`, for callers that cannot await.
    public func waitForLineBlocking(after skip: Int = 0, timeout: Duration,
                                    where matches: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = try line(after: skip, where: matches, deadline: deadline, timeout: timeout) { return found }
            usleep(5_000)
        }
    }

    /// The first line after the first `skip` ones that `matches`, waiting up to `timeout`.
    public func waitForLine(after skip: Int = 0, timeout: Duration,
                            where matches: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = try line(after: skip, where: matches, deadline: deadline, timeout: timeout) { return found }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the child has ended (a zombie not yet reaped, or reaped).
    public var hasExited: Bool {
        guard exitStatus.withLock({ $0 }) == nil,
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        else { return true }
        return stat.split(separator: ")").last?.dropFirst().first == "Z"
    }

    /// Sends `signal` unless the child has already been reaped.
    public func signal(_ number: Int32) {
        if exitStatus.withLock({ $0 }) == nil { kill(pid, number) }
    }

    /// The exit status (or 128 + the signal that ended it); nil when it still runs after `timeout`, and then it is killed.
    @discardableResult
    public func waitForExit(timeout: Duration) -> Int32? {
        if let known = exitStatus.withLock({ $0 }) { return known }
        let status = reap(pid, within: timeout)
        exitStatus.withLock { $0 = status ?? 128 + SIGKILL }
        return status
    }

    /// SIGTERM, then SIGKILL after `grace`; the exit status, nil when it had to be killed.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) -> Int32? {
        signal(SIGTERM)
        return waitForExit(timeout: grace)
    }

    /// A connected pair of descriptors, both close-on-exec: [0] is the reading end by convention, [1] the writing one.
    private static func channel() throws -> [Int32] {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw HarnessError("socketpair: \(String(cString: strerror(errno)))")
        }
        return pair
    }

    private func line(after skip: Int, where matches: (String) -> Bool, deadline: ContinuousClock.Instant,
                      timeout: Duration) throws -> String? {
        let (found, ended) = output.withLock { ($0.lines.dropFirst(skip).first(where: matches), $0.ended) }
        if let found { return found }
        if ended { throw HarnessError("\(name) (pid \(pid)) ended; its last lines: \(lines.suffix(20))") }
        if ContinuousClock.now >= deadline {
            throw HarnessError("\(name) (pid \(pid)): no awaited line within \(timeout); its last lines: \(lines.suffix(20))")
        }
        return nil
    }

    /// Reads the child's stdout on a thread of its own: the read blocks.
    private func collect(_ descriptor: Int32) {
        let thread = Thread { [output] in
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    output.withLock { $0.lines.append(line) }
                }
            }
            close(descriptor)
            output.withLock { $0.ended = true }
        }
        thread.start()
    }
}

/// Waits up to `timeout` for the child `pid` to end, and reaps it: its exit status, or 128 + the signal that
/// ended it. A child that still runs then is killed (SIGKILL) and reaped, and the answer is nil.
public func reap(_ pid: pid_t, within timeout: Duration) -> Int32? {
    let deadline = ContinuousClock.now + timeout
    var status: Int32 = 0
    while ContinuousClock.now < deadline {
        if waitpid(pid, &status, WNOHANG) == pid {
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
        usleep(5_000)
    }
    kill(pid, SIGKILL)
    waitpid(pid, &status, 0)
    return nil
}
