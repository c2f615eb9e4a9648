import POSIXSupport

/// `<journal>/kept-from`: the first seq of the oldest segment retention must keep, whatever `maxBytes` and `maxAge`
/// say, because it holds a scan still waiting for its verdict (a chip read deferred through an API outage: its proof
/// is in its `scan` line and nowhere else once the daemon restarts). Kept in a file so that the retention a start
/// runs, before anyone could say it again, honours it too. A `SeqFile`: a crash leaves the
/// old floor or the new one.
struct RetentionFloor: Sendable {
    private let file: SeqFile

    init(directory: String) {
        file = SeqFile(directory: directory, name: "kept-from", mode: 0o640)
    }

    /// Nil when there is no floor (or the file holds no seq, which no journal wrote).
    func load() -> UInt64? {
        file.load()
    }

    /// Sets the floor, or removes it (nil).
    func save(_ firstSeq: UInt64?) throws(Errno) {
        if let firstSeq { try file.save(firstSeq) } else { try file.remove() }
    }
}
