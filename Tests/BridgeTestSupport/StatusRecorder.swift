import Foundation
import Synchronization
import TestSupport

/// Reads a NotifyListener all the time, as systemd does (a reader that lags would block the
/// service's sd_notify once the datagram queue is full), and keeps every STATUS= it saw.
public final class StatusRecorder: Sendable {
    public let listener: NotifyListener
    private let state = Shared()

    private final class Shared: Sendable {
        let statuses = Mutex<[String]>([])
        let running = Atomic<Bool>(true)
    }

    public init() throws {
        listener = try NotifyListener(form: .path)
        Thread { [listener, state] in
            while state.running.load(ordering: .relaxed) {
                if let status = listener.receive(timeout: .milliseconds(100))?.assignments["STATUS"] {
                    state.statuses.withLock { $0.append(status) }
                }
            }
        }.start()
    }

    deinit {
        state.running.store(false, ordering: .relaxed)
    }

    public var last: String { state.statuses.withLock { $0.last ?? "" } }
    /// Every STATUS= so far, in order.
    public var all: [String] { state.statuses.withLock { $0 } }

    /// How many STATUS= so far contained `text`.
    public func count(containing text: String) -> Int {
        state.statuses.withLock { $0.filter { $0.contains(text) }.count }
    }

    public func waitFor(_ text: String, timeout: Duration) throws {
        try waitUntil("no STATUS= with '\(text)'; the last was '\(last)'", timeout: timeout) { last.contains(text) }
    }

    /// Waits for any STATUS= so far to contain `text`: a bridge that retries may move on to its next state
    /// ("connecting") before a reader looks at the last one.
    public func waitForAny(_ text: String, timeout: Duration) throws {
        try waitUntil("no STATUS= ever with '\(text)'; the last was '\(last)'", timeout: timeout) {
            state.statuses.withLock { $0.contains { $0.contains(text) } }
        }
    }
}
