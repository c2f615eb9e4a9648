import StationClient
import Testing

/// Where a `replay` meets the live events, as `StationFeed` and `sealtrust-scanctl watch --reconnect` both take it:
/// every event once, in seq order, whatever the daemon sends live while the replay runs.
@Suite(.timeLimit(.minutes(1))) struct ReplaySeamTests {
    /// The client had 10; the daemon, back with 14 journaled, sends 15 live before the replay brings 11 to 14, then
    /// 15 again: 15 is taken once, in its place.
    @Test func aLiveEventAheadOfTheReplayIsTakenOnceInItsPlace() {
        var seam = ReplaySeam(since: 10)
        let sameJournal = seam.connected(newest: 14)
        #expect(sameJournal && seam.lastSeq == 10 && !seam.isCaughtUp)
        let arrivals: [UInt64] = [15, 11, 12, 13, 14, 15, 16]
        let taken = arrivals.filter { seam.take($0) != .skip }
        #expect(taken == [11, 12, 13, 14, 15, 16])
        #expect(seam.isCaughtUp && seam.lastSeq == 16)
    }

    /// Once the replay has reached what the journal held at connect, a seq past the next one follows events that
    /// will never come (retention removed them): it is taken, and the gap named.
    @Test func pastTheJournalsEndAtConnectASkipIsAGap() {
        var seam = ReplaySeam(since: 3)
        _ = seam.connected(newest: 3)
        let takes = [seam.take(7), seam.take(7), seam.take(8)]
        #expect(takes == [.afterGap(4...6), .skip, .next], "7 after the gap, once")
    }

    /// A journal that ends before what was taken is a new one: the client says where it goes on.
    @Test func aJournalBehindWhatWasTakenIsSaid() {
        var seam = ReplaySeam(since: 500)
        let sameJournal = seam.connected(newest: 20)
        #expect(!sameJournal)
        seam.resume(after: 20)
        let takes = [seam.take(20), seam.take(21)]
        #expect(takes == [.skip, .next])
    }
}
