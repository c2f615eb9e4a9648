import JSONCore
@testable import KioskBridge
import StationWire
import Testing

/// A scrape of `/metrics` without a browser or a daemon: it waits for the status it asked, shares it with the
/// scrapes that come meanwhile, and never waits longer than its patience or past the daemon's loss.
struct ScrapeTests {
    typealias Clock = PassportDeskTests.Clock
    typealias Sent = PassportDeskTests.Sent

    /// A station state whose commands are recorded instead of sent, the daemon reachable.
    static func state(clock: Clock) -> (StationState, Sent) {
        let state = StationState(version: "0.1.0", now: { clock.instant.withLock { $0 } })
        let sent = Sent()
        state.setReachable(true)
        state.connected { command in sent.withLock { $0.append(command) }; return true }
        return (state, sent)
    }

    static func status(clients: Int) -> JSON {
        .object([("type", "status"), ("id", StationState.scrapeStatusID), ("clients", .int(Int64(clients))), ("last_seq", 9)])
    }

    static func body(_ answer: HTTPAnswer) -> String? {
        PassportDeskTests.document(answer).map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test func twoScrapesShareOneStatusAndGetItsNumbers() {
        let clock = Clock()
        let (state, sent) = Self.state(clock: clock)
        state.record(status: .object([("type", "status"), ("id", "kiosk-status"), ("clients", 1)]))
        let first = state.scrape()
        let second = state.scrape()
        #expect(Self.body(first) == nil && Self.body(second) == nil, "both wait for the daemon")
        #expect(sent.withLock { $0.count } == 1, "one question for both")
        state.record(status: Self.status(clients: 3))
        #expect(Self.body(first)?.contains("sealtrust_clients 3") == true)
        #expect(Self.body(second)?.contains("sealtrust_clients 3") == true)
        _ = state.scrape()
        #expect(sent.withLock { $0.count } == 2, "the next scrape asks again")
    }

    @Test func aDaemonThatDoesNotAnswerLeavesTheScrapeTheLastStatusAfterItsPatience() {
        let clock = Clock()
        let (state, _) = Self.state(clock: clock)
        state.record(status: .object([("type", "status"), ("id", "kiosk-status"), ("clients", 2)]))
        let scrape = state.scrape()
        clock.advance(StationState.scrapePatience)
        state.expire()
        #expect(Self.body(scrape) == nil, "within its patience it waits")
        clock.advance(.milliseconds(1))
        state.expire()
        #expect(Self.body(scrape)?.contains("sealtrust_clients 2") == true)
    }

    @Test func aLostDaemonAnswersTheWaitingScrapeWithoutItsNumbers() {
        let (state, _) = Self.state(clock: Clock())
        state.record(status: Self.status(clients: 2))
        let scrape = state.scrape()
        state.setReachable(false)
        let text = Self.body(scrape)
        #expect(text?.contains("sealtrust_up 0") == true)
        #expect(text?.contains("sealtrust_clients") == true && text?.contains("sealtrust_clients 2") == false, "no stale number")
        #expect(Self.body(state.scrape())?.contains("sealtrust_up 0") == true, "answered at once while it is away")
    }
}
