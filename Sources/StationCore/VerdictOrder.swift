import StationWire
import Synchronization

/// Keeps a scan's `verdict` behind its `scan` in the journal while the API call runs beside the scan's write:
/// whichever of the two finishes second writes the verdict. No task waits for the other.
final class VerdictOrder: Sendable {
    private struct State {
        var scanWritten = false
        var verdict: VerdictEvent?
    }

    private let state = Mutex(State())

    /// The scan is written: returns the verdict when it came first, for the caller to write now.
    func scanWritten() -> VerdictEvent? {
        state.withLock { state in
            state.scanWritten = true
            defer { state.verdict = nil }
            return state.verdict
        }
    }

    /// The verdict is ready: true when the scan is already written, so the caller writes the verdict now;
    /// otherwise it is kept for `scanWritten`.
    func verdictReady(_ verdict: VerdictEvent) -> Bool {
        state.withLock { state in
            guard state.scanWritten else {
                state.verdict = verdict
                return false
            }
            return true
        }
    }
}
