import POSIXSupport
import ScanJournal

/// `<journal>/presenting`: the seq of the `deferred` verdict whose proof is being presented, made durable before its
/// call starts and removed once its late verdict is journaled (or it stays deferred). A start that finds it, with no
/// late verdict naming that seq in the journal, ends that scan as a late `failure`: its proof may have reached the API,
/// and is never sent twice. A file of the daemon's own rather than a journal event: protocol 1's clients would be sent
/// an event type that is no news to them.
struct PresentingMark: Sendable {
    private let file: SeqFile
    var path: String { file.path }

    init(journalDirectory: String) {
        file = SeqFile(directory: journalDirectory, name: "presenting", mode: 0o600)
    }

    /// The seq it names; nil when there is none (or it holds no seq, which no daemon wrote).
    func load() -> UInt64? {
        file.load()
    }

    /// Durable before it returns (`SeqFile`): a crash leaves no mark or this one.
    func save(_ seq: UInt64) throws(Errno) {
        try file.save(seq)
    }

    func clear() {
        try? file.remove()
    }
}
