import Foundation
import DaemonConfiguration
import JSONCore
import Logging
import ScanJournal
import StationCore
import StationWire
import TestSupport
import VerdictSocket

/// What the core published, in order, as the protocol's JSON.
final class RecordingPublisher: EventPublisher {
    let events: AsyncStream<(JSON, ClientID?)>
    private let continuation: AsyncStream<(JSON, ClientID?)>.Continuation

    init() {
        (events, continuation) = AsyncStream.makeStream(of: (JSON, ClientID?).self)
    }

    func publish(_ event: JournaledEvent, requester: ClientID?) {
        continuation.yield(((try? JSON.parse(event.line)) ?? .null, requester))
    }

    /// A refusal comes through as the `error` answer the requester would read.
    func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String) {
        continuation.yield((ServerAnswer.error(code, detail, id: requestID ?? .null), requester))
    }

    func answer(_ message: JSON, to requester: ClientID) {
        continuation.yield((message, requester))
    }
}

struct StationTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// The events a running core publishes, read one at a time.
struct PublishedEvents {
    private var iterator: AsyncStream<(JSON, ClientID?)>.Iterator
    /// Everything read so far, in order.
    private(set) var all: [JSON] = []

    init(_ publisher: RecordingPublisher) {
        iterator = publisher.events.makeAsyncIterator()
    }

    /// The next event that matches; the suite's time limit bounds the wait.
    mutating func next(where matches: (JSON) -> Bool) async throws -> JSON {
        while let (event, _) = await iterator.next() {
            all.append(event)
            if matches(event) { return event }
        }
        throw StationTestFailure(description: "the core stopped publishing; saw \(all.map { $0.encoded() })")
    }

    mutating func next(_ type: String) async throws -> JSON {
        try await next { $0["type"] == .string(type) }
    }

    /// The scan and the verdict of the next scan from `source`.
    mutating func scanAndVerdict(source: String = "manual") async throws -> (scan: JSON, verdict: JSON) {
        let scan = try await next { $0["type"] == "scan" && $0["source"] == .string(source) }
        let verdict = try await next { $0["type"] == "verdict" && $0["scan_id"] == scan["scan_id"] }
        return (scan, verdict)
    }
}

/// One station core in this process, journaling into a scratch folder, its API calls answered by a stand-in.
struct CoreRig {
    let core: StationRuntime
    let journal: Journal
    let directory: String
    let statusLines: AsyncStream<String>
    /// Every status line given so far, in order.
    let statusHistory: LoggedLines

    static func options(directory: String) -> DaemonOptions {
        var options = DaemonOptions()
        options.nfc = .none
        options.cameras = []
        options.journalPath = directory + "/journal"
        options.station = "test-bench"
        return options
    }

    /// Runs a core for `body`, then stops it gracefully and waits for it; returns what `body` returned.
    /// `logger` and `now`: where its log lines go and the clock that spaces out a source's logged errors.
    /// `segmentBytes` and `beforeSync`: the journal's (see `Journal.init`).
    static func run<Result: Sendable>(
        api: StandInAPI = StandInAPI(), adjusting adjust: (inout DaemonOptions) -> Void = { _ in },
        logger: Logger = Logger(program: "sealtrust-scand", level: .warning, environment: [:]),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, segmentBytes: Int? = nil,
        beforeSync: @escaping @Sendable () -> Void = {},
        _ body: (CoreRig, inout PublishedEvents) async throws -> Result
    ) async throws -> Result {
        let directory = try makeScratchDirectory("station-core")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = options(directory: directory)
        adjust(&options)
        let clock = DaemonClock(monotonic: now, wall: DaemonClock.system.wall)
        let journal = try Journal(path: options.journalPath, segmentBytes: segmentBytes, clock: clock, beforeSync: beforeSync)
        defer { journal.close() }
        let publisher = RecordingPublisher()
        let (statusLines, statusContinuation) = AsyncStream.makeStream(of: String.self)
        let statusHistory = LoggedLines()
        let core = StationRuntime(options: options, journal: journal, publisher: publisher, logger: logger,
                               tokens: TokenStore(path: nil, logger: logger), clock: clock, makeAPI: { _ in api }) {
            statusHistory.append($0)
            statusContinuation.yield($0)
        }
        let rig = CoreRig(core: core, journal: journal, directory: directory, statusLines: statusLines, statusHistory: statusHistory)
        var events = PublishedEvents(publisher)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await core.run() }
            let result = try await body(rig, &events)
            core.stopGracefully()
            try await group.waitForAll()
            return result
        }
    }
}
