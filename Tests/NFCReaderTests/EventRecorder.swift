import Foundation
import NFCReader
import Synchronization
import Testing

/// Consumes one `NFCMonitor.events()` stream in the background and lets a test wait for what it expects.
final class EventRecorder: Sendable {
    private final class Events: Sendable {
        let list = Mutex<[NFCEvent]>([])
    }

    private let events = Events()
    private let consumer: Task<Void, Never>

    init(_ monitor: NFCMonitor) {
        let stream = monitor.events()
        let events = events
        consumer = Task {
            for await event in stream {
                events.list.withLock { $0.append(event) }
            }
        }
    }

    var all: [NFCEvent] { events.list.withLock { $0 } }
    var count: Int { events.list.withLock { $0.count } }

    /// The first event after the first `skip` ones that `matches`, waiting up to `timeout`.
    func next(after skip: Int = 0, within timeout: Duration = .seconds(10),
              _ what: String, where matches: (NFCEvent) -> Bool) async throws -> NFCEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = all.dropFirst(skip).first(where: matches) { return found }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw MonitorTestFailure("no \(what) within \(timeout); events so far: \(all)")
    }

    /// The next tag event (read or failure) on `reader`.
    func nextTag(on reader: String, after skip: Int, within timeout: Duration = .seconds(10)) async throws -> NFCEvent {
        try await next(after: skip, within: timeout, "tag event on \(reader)") { event in
            switch event {
            case .tagRead(let read): read.reader == reader
            case .tagFailed(let name, _): name == reader
            default: false
            }
        }
    }

    func tagEvents(on reader: String) -> [NFCEvent] {
        all.filter { event in
            switch event {
            case .tagRead(let read): read.reader == reader
            case .tagFailed(let name, _): name == reader
            default: false
            }
        }
    }

    func stop() {
        consumer.cancel()
    }
}

struct MonitorTestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
