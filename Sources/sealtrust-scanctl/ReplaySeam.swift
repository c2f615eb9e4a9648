/// Which events `watch --reconnect` shows: each one once, in order, across restarts of the daemon.
///
/// After each connect the client asks `replay` from the last seq it showed. A live event that the daemon sends
/// between its `hello` and that `replay` comes again in the replay, in its place: the first copy is skipped.
struct ReplaySeam {
    private(set) var lastShown: UInt64
    /// The daemon's `last_seq` in its latest `hello`: until the replay reaches it, a later seq is such a live copy.
    private var newestAtConnect: UInt64

    init(newest: UInt64) {
        lastShown = newest
        newestAtConnect = newest
    }

    /// Takes a new connection's `last_seq`; returns the seq to replay from.
    mutating func connected(newest: UInt64) -> UInt64 {
        // A journal behind what was shown is a new one: its old seqs cannot be replayed, its next ones are new.
        lastShown = min(lastShown, newest)
        newestAtConnect = newest
        return lastShown
    }

    /// Whether the event numbered `seq` is shown now.
    mutating func shows(_ seq: UInt64) -> Bool {
        guard seq > lastShown else { return false }
        if seq > lastShown + 1 && lastShown < newestAtConnect { return false }
        lastShown = seq
        return true
    }
}
