import Glibc
import POSIXSupport
import StationWire

/// One connection to the daemon's socket, `hello` already read.
///
/// A thread of its own blocks in poll(2) and recv(2) and splits lines; at most
/// `queueCapacity` lines wait for the reader of `next()`, after which the thread stops
/// reading and the daemon's own bound (its client queue) takes over.
public final class StationConnection: Sendable {
    /// The longest line accepted from the daemon, the longest it writes (its events carry a raw scan of up to 64 KiB;
    /// a product's answer is bounded to fit).
    public static let maximumLineBytes = ServerLine.longestBytes
    static let queueCapacity = 1_024

    public let hello: StationHello
    private let socket: SocketDescriptor
    private let wake: WakePipe
    private let inbox: LineInbox

    /// Connects and reads the `hello`; a daemon silent for `helloTimeout` is given up.
    public static func connect(path: String, helloTimeout: Duration = .seconds(10)) async throws(StationClientError) -> StationConnection {
        let socket = try SocketDescriptor.connect(path: path)
        let wake: WakePipe
        do throws(Errno) {
            wake = try WakePipe()
        } catch {
            throw .system(operation: "socketpair", path: "", errno: error)
        }
        let inbox = LineInbox(capacity: queueCapacity)
        OSThread.start(name: "station-read") { readLines(from: socket, wake: wake, into: inbox) }
        let first = await withTaskGroup(of: Void.self) { timer in
            timer.addTask {
                guard (try? await Task.sleep(for: helloTimeout)) != nil else { return }
                inbox.finish(.noHello(seconds: Int(helloTimeout.components.seconds)))
            }
            defer { timer.cancelAll() }
            return await inbox.next { wake.wake() }
        }
        do {
            guard let first else { throw inbox.ending ?? .closedByDaemon }
            guard let message = StationLine(line: first) else { throw StationClientError.protocolBroken(line: String(first.prefix(200))) }
            if message.type == .error { throw StationClientError.refused(code: message.code ?? "error", detail: message.detail ?? "") }
            guard let hello = StationHello(message), hello.protocolVersion == 1 else {
                throw StationClientError.protocolBroken(line: String(first.prefix(200)))
            }
            return StationConnection(hello: hello, socket: socket, wake: wake, inbox: inbox)
        } catch let error as StationClientError {
            inbox.finish(error)
            socket.shutDown()
            wake.wake()
            throw error
        } catch {
            preconditionFailure("only StationClientError is thrown above")
        }
    }

    private init(hello: StationHello, socket: SocketDescriptor, wake: WakePipe, inbox: LineInbox) {
        self.hello = hello
        self.socket = socket
        self.wake = wake
        self.inbox = inbox
    }

    deinit {
        close()
    }

    public func send(_ command: ClientCommand) throws(StationClientError) {
        try socket.sendAll(Array((command.json.encoded() + "\n").utf8))
    }

    /// The next message; nil once the connection ended (then `ending` says why).
    /// A line that is not a JSON object with a `type` ends the connection as `protocolBroken`.
    public func next() async -> StationLine? {
        guard let line = await inbox.next(roomMade: { [wake] in wake.wake() }) else { return nil }
        guard let message = StationLine(line: line) else {
            end(.protocolBroken(line: String(line.prefix(200))))
            return nil
        }
        return message
    }

    /// Why the connection ended: `closedByDaemon`, `closed` after `close()`, a system error...; nil while open.
    public var ending: StationClientError? {
        inbox.ending
    }

    /// Ends the connection; a pending `next()` returns nil.
    public func close() {
        end(.closed)
    }

    private func end(_ reason: StationClientError) {
        inbox.finish(reason)
        socket.shutDown()
        wake.wake()
    }

    /// The reader thread: hands lines over until the socket ends or the connection is closed.
    private static func readLines(from socket: SocketDescriptor, wake: WakePipe, into inbox: LineInbox) {
        var splitter = StationLineSplitter(maximumLineBytes: maximumLineBytes)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (ended, full) = inbox.status
            if ended { return }
            var descriptors = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: full ? -1 : socket.value, events: Int16(POLLIN), revents: 0)]
            do throws(Errno) {
                _ = try Poll.wait(&descriptors, until: nil)
            } catch {
                inbox.finish(.system(operation: "poll", path: "", errno: error))
                return
            }
            if descriptors[0].revents != 0 { wake.drain() }
            guard descriptors[1].revents != 0 else { continue }
            let count = recv(socket.value, &chunk, chunk.count, 0)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                inbox.finish(errno == ECONNRESET ? .closedByDaemon : .system(operation: "recv", path: "", errno: .current))
                return
            }
            if count == 0 {
                inbox.finish(.closedByDaemon)
                return
            }
            let (lines, tooLong) = splitter.append(chunk[0..<count])
            if !lines.isEmpty { inbox.push(lines) }
            if tooLong {
                inbox.finish(.lineTooLong(bytes: maximumLineBytes))
                return
            }
        }
    }
}
