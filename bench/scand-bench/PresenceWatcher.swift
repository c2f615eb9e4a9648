import CPCSCLite
import Glibc
import POSIXSupport
import Synchronization

/// The card-present event on one reader, as a PC/SC client sees it, timed on this process's clock: the start of a
/// tap measured in microseconds, where the daemon's own `latency_ms` has whole milliseconds only.
///
/// pcscd wakes every client waiting on the reader at once, so this thread sees the presentation when the daemon's
/// monitor (or the C reference) does. After each presentation it waits for `rearm`, so that during the tap it makes
/// no PC/SC call beside the program being measured; then it notes the tag's removal once pcscd has noticed it, so that
/// the benchmark can tell when every client of the reader has seen the tap end.
final class PresenceWatcher: Sendable {
    private struct State {
        var presentations: [ContinuousClock.Instant] = []
        var removals = 0
        var stopping = false
        var failure: String?
    }

    private let reader: String
    private let state = Mutex(State())
    private let rearmed = ThreadSignal()
    private let ended = ThreadSignal()
    private let context: SCARDCONTEXT

    init(reader: String) throws {
        self.reader = reader
        var context: SCARDCONTEXT = 0
        let status = SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context)
        guard status == SCARD_S_SUCCESS else { throw BenchFailure("SCardEstablishContext: \(status)") }
        self.context = context
        OSThread.start(name: "bench-presence") { [self] in
            watch()
            ended.signal()
        }
    }

    /// Presentations seen so far.
    var count: Int { state.withLock { $0.presentations.count } }

    /// The `index`th presentation (from 0), once seen, waiting up to `timeout`.
    func presentation(_ index: Int, timeout: Duration) async throws -> ContinuousClock.Instant {
        try await waitFor("card-present event", timeout: timeout) { $0.presentations.count > index ? $0.presentations[index] : nil }
    }

    /// Returns once pcscd has noticed the removal that ended the `index`th presentation (from 0), waiting up to `timeout`.
    func removal(_ index: Int, timeout: Duration) async throws {
        try await waitFor("removal", timeout: timeout) { $0.removals > index ? () : nil }
    }

    private func waitFor<Seen>(_ event: String, timeout: Duration, _ seen: (State) -> Seen?) async throws -> Seen {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, failure) = state.withLock { (seen($0), $0.failure) }
            if let found { return found }
            if let failure { throw BenchFailure("the presence watcher on \(reader): \(failure)") }
            guard ContinuousClock.now < deadline else { throw BenchFailure("no \(event) on \(reader)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Watch for the next presentation (call once the tap is over).
    func rearm() {
        rearmed.signal()
    }

    func stop() {
        state.withLock { $0.stopping = true }
        rearmed.signal()
        repeat {
            SCardCancel(context)
        } while !ended.wait(timeout: .milliseconds(20))
        SCardReleaseContext(context)
    }

    private func watch() {
        let name = strdup(reader)
        defer { free(name) }
        var entry = SCARD_READERSTATE()
        entry.szReader = UnsafePointer(name)
        entry.dwCurrentState = DWORD(SCARD_STATE_UNAWARE)
        var first = true
        var inField = false
        while !state.withLock({ $0.stopping }) {
            let status = SCardGetStatusChange(context, first ? 0 : DWORD(INFINITE), &entry, 1)
            let now = ContinuousClock.now
            guard status == SCARD_S_SUCCESS else {
                if status != SCARD_E_CANCELLED { state.withLock { $0.failure = "SCardGetStatusChange: \(status)" } }
                return
            }
            let present = entry.dwEventState & DWORD(SCARD_STATE_PRESENT) != 0
            // pcscd counts insertions and removals in the high word: a new count is a new presentation.
            let newPresentation = entry.dwCurrentState & DWORD(SCARD_STATE_PRESENT) == 0
                || entry.dwEventState >> 16 != entry.dwCurrentState >> 16
            entry.dwCurrentState = entry.dwEventState & ~DWORD(SCARD_STATE_CHANGED)
            // A tag already in the field at the start is no presentation.
            if present && newPresentation && !first {
                state.withLock { $0.presentations.append(now) }
                rearmed.wait()
                inField = true
            } else if !present && inField {
                state.withLock { $0.removals += 1 }
                inField = false
            }
            first = false
        }
    }
}
