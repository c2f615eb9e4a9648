import Foundation
import Glibc
import Harness
import JSONCore
import Synchronization

public struct BrowserError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Debian's headless Chromium, driven through the DevTools protocol over `--remote-debugging-pipe`:
/// commands go in on its fd 3, answers and events come out of its fd 4, each JSON message ended by a NUL.
public final class Chromium: Sendable {
    public let pid: pid_t
    private let commands: Int32
    private let replies = Replies()
    /// The fresh profile folder, removed when the browser ends.
    public let profile: String

    /// Starts the browser with a fresh profile; `width`×`height` is the kiosk screen.
    public init(width: Int = 1280, height: Int = 800) throws {
        let executable = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"].first { (path: String) in access(path, X_OK) == 0 }
        guard let executable else { throw BrowserError("chromium is not installed (apt-get install chromium)") }
        profile = try makeScratchDirectory("kiosk-chromium")
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw BrowserError("pipe failed") }
        // Only the child's copies at 3 and 4 may outlive the exec.
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let arguments = [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                         "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-dev-shm-usage",
                         "--disable-background-networking", "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                         "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "about:blank"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, profile + "/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, profile + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // A session of its own, so that its helpers (zygote, renderers) can be ended with it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID, which spawn.h hides behind _GNU_SOURCE
        var child: pid_t = 0
        let pointers = arguments.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        let spawned = posix_spawn(&child, executable, &actions, &attributes, pointers, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw BrowserError("posix_spawn chromium: \(String(cString: strerror(spawned)))")
        }
        pid = child
        commands = toBrowser[1]
        let answers = fromBrowser[0]
        // The thread holds the replies, not the browser: the browser's deinit, which ends the thread, can then run.
        Thread { [replies] in replies.readMessages(from: answers) }.start()
    }

    deinit {
        close(commands)
        // Its helpers write into the profile too: all of them go before the profile does.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Sends one command and waits for its answer's `result`; throws the protocol's `error`.
    public func send(_ method: String, _ params: JSON = .object([]), session: String? = nil,
                     timeout: Duration = .seconds(20)) async throws -> JSON {
        let id = replies.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [(String, JSON)] = [("id", .int(Int64(id))), ("method", .string(method)), ("params", params)]
        if let session { message.append(("sessionId", .string(session))) }
        let bytes = Array(JSON.object(message).encoded().utf8) + [0]
        let timer = Task { [replies] in
            try await Task.sleep(for: timeout)
            replies.finish(id, with: .failure(BrowserError("\(method): no answer within \(timeout)")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ended = replies.state.withLock { state -> Bool in
                if !state.ended { state.waiting[id] = continuation }
                return state.ended
            }
            if ended {
                continuation.resume(throwing: BrowserError("chromium has exited"))
                return
            }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    replies.finish(id, with: .failure(BrowserError("write to chromium: \(String(cString: strerror(errno)))")))
                    return
                }
                offset += written
            }
        }
    }

    /// A new tab on `url`, attached for commands.
    public func open(_ url: String) async throws -> BrowserPage {
        let target = try await send("Target.createTarget", .object([("url", "about:blank")]))
        guard let targetID = target["targetId"]?.stringValue else { throw BrowserError("no targetId") }
        let attached = try await send("Target.attachToTarget", .object([("targetId", .string(targetID)), ("flatten", true)]))
        guard let session = attached["sessionId"]?.stringValue else { throw BrowserError("no sessionId") }
        let page = BrowserPage(browser: self, session: session)
        try await page.navigate(url)
        return page
    }
}

/// The commands waiting for an answer, and the reader thread that answers them.
private final class Replies: Sendable {
    struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<JSON, any Error>] = [:]
        var ended = false
    }

    let state = Mutex(State())

    func finish(_ id: Int, with result: Result<JSON, any Error>) {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
        waiter?.resume(with: result)
    }

    /// The reader thread: blocks in read(2), splits at NUL, answers the waiting commands. Events are not kept.
    func readMessages(from descriptor: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            buffer += chunk[0..<count]
            while let end = buffer.firstIndex(of: 0) {
                let message = try? JSON.parse(utf8: buffer[..<end])
                buffer.removeSubrange(...end)
                guard let message, let id = message["id"]?.integerValue else { continue }
                if let error = message["error"] {
                    finish(Int(id), with: .failure(BrowserError("DevTools: \(error.encoded())")))
                } else {
                    finish(Int(id), with: .success(message["result"] ?? .null))
                }
            }
        }
        close(descriptor)
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.resume(throwing: BrowserError("chromium has exited")) }
    }
}

/// One tab: scripts evaluated in it, screenshots of it.
public struct BrowserPage: Sendable {
    let browser: Chromium
    let session: String

    public func navigate(_ url: String) async throws {
        _ = try await browser.send("Page.navigate", .object([("url", .string(url))]), session: session)
        _ = try await evaluate("new Promise((done) => document.readyState === 'complete' ? done(true) : addEventListener('load', () => done(true)))")
    }

    /// The value of `expression` (a promise is awaited), as JSON.
    @discardableResult
    public func evaluate(_ expression: String, timeout: Duration = .seconds(20)) async throws -> JSON {
        let answer = try await browser.send("Runtime.evaluate", .object([
            ("expression", .string(expression)), ("awaitPromise", true), ("returnByValue", true),
        ]), session: session, timeout: timeout)
        if let thrown = answer["exceptionDetails"] {
            throw BrowserError("the page threw: \(thrown["exception"]?["description"]?.stringValue ?? thrown.encoded())")
        }
        return answer["result"]?["value"] ?? .null
    }

    /// A PNG of what the screen shows, written to `path`.
    public func screenshot(to path: String) async throws {
        let shot = try await browser.send("Page.captureScreenshot", .object([("format", "png")]), session: session)
        guard let base64 = shot["data"]?.stringValue, let data = Data(base64Encoded: base64) else { throw BrowserError("no screenshot data") }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }
}
