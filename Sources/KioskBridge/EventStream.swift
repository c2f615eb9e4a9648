import CMicroHTTPD
import Glibc
import Synchronization

/// One open `GET /events` response: the bytes waiting for the client, handed to libmicrohttpd as it can send them.
///
/// While nothing waits, the connection is suspended (no busy polling on the server's one thread) and resumed by
/// the next `send`. A client that lets more than `pendingLimit` bytes pile up is too slow: its stream ends.
public final class EventStream: Sendable {
    /// A libmicrohttpd connection; only touched under `state`'s lock, and only while it is suspended.
    struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var pending: [UInt8] = []
        var head = 0
        var suspended = false
        var ended = false
        var connection: Connection?
        var waiting: Int { pending.count - head }
    }

    public static let pendingLimit = 1 << 20
    public let id: Int
    /// The `Last-Event-ID` the client sent, when it is a seq.
    public let resumeAfter: UInt64?
    private let state = Mutex(State())
    private let finished = Atomic<Bool>(false)

    init(id: Int, resumeAfter: UInt64?) {
        self.id = id
        self.resumeAfter = resumeAfter
    }

    /// True once the connection is gone or the stream ended: the hub forgets it.
    public var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// Queues `bytes`; false when the stream is over, including when this made it too slow.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard !isFinished else { return false }
        return state.withLock { state in
            guard !state.ended else { return false }
            if state.waiting + bytes.count > Self.pendingLimit {
                state.ended = true
                state.pending = []
                state.head = 0
                finished.store(true, ordering: .releasing)
            } else {
                state.pending.append(contentsOf: bytes)
            }
            if state.suspended, let connection = state.connection {
                state.suspended = false
                MHD_resume_connection(connection.pointer)
            }
            return !state.ended
        }
    }

    /// Ends the stream once what is queued has gone out.
    public func end() {
        state.withLock { state in
            state.ended = true
            if state.suspended, let connection = state.connection {
                state.suspended = false
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    /// A suspended stream whose client hung up is ended, so that its connection is freed now rather than
    /// at the next event or keep-alive: the bridge serves only 64 connections.
    func endIfClientLeft() {
        state.withLock { state in
            guard state.suspended, let connection = state.connection else { return }
            let socket = kiosk_mhd_connection_fd(connection.pointer)
            guard socket >= 0 else { return }
            // The client sends nothing after its request: an end of stream or an error here means it is gone.
            var byte: UInt8 = 0
            let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            guard peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EINTR) else { return }
            state.ended = true
            state.suspended = false
            MHD_resume_connection(connection.pointer)
        }
    }

    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = Connection(pointer: connection) }
    }

    /// libmicrohttpd's request is over (the client left, or the stream ended).
    func connectionClosed() {
        finished.store(true, ordering: .releasing)
    }

    /// The content reader, on libmicrohttpd's thread: bytes copied, 0 after suspending, or the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state in
            let count = min(state.waiting, buffer.count)
            if count > 0 {
                state.pending.withUnsafeBytes { source in
                    buffer.baseAddress!.copyMemory(from: source.baseAddress! + state.head, byteCount: count)
                }
                state.head += count
                if state.head == state.pending.count {
                    state.pending.removeAll(keepingCapacity: state.pending.capacity <= 65_536)
                    state.head = 0
                } else if state.head > 65_536 {
                    state.pending.removeFirst(state.head)
                    state.head = 0
                }
                return count
            }
            if state.ended {
                finished.store(true, ordering: .releasing)
                return Int(MHD_CONTENT_READER_END_OF_STREAM)
            }
            guard let connection = state.connection else { return Int(MHD_CONTENT_READER_END_WITH_ERROR) }
            state.suspended = true
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }
}
