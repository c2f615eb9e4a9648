import CPCSCLite
import Glibc
import POSIXSupport

extension PrivatePCSCD {
    /// Returns once this pcscd reports `reader` empty (it polls vpcd's readers every 400 ms), or after `timeout`; at
    /// once when pcscd does not answer or does not know the reader. A tag's stop waits for it, so that whatever runs
    /// next starts with an empty reader, without a fixed sleep that covers pcscd's poll.
    public static func waitUntilEmpty(_ reader: String, timeout: Duration = .seconds(5)) {
        var context: SCARDCONTEXT = 0
        guard SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context) == SCARD_S_SUCCESS else { return }
        defer { SCardReleaseContext(context) }
        let name = strdup(reader)
        defer { free(name) }
        var state = SCARD_READERSTATE()
        state.szReader = UnsafePointer(name)
        state.dwCurrentState = DWORD(SCARD_STATE_UNAWARE)
        let deadline = ContinuousClock.now + timeout
        while case let remaining = deadline - .now, remaining > .zero {
            guard SCardGetStatusChange(context, DWORD(remaining.roundedUpMilliseconds), &state, 1) == SCARD_S_SUCCESS else { return }
            let done = DWORD(SCARD_STATE_EMPTY) | DWORD(SCARD_STATE_UNKNOWN) | DWORD(SCARD_STATE_IGNORE)
            if state.dwEventState & done != 0 { return }
            state.dwCurrentState = state.dwEventState & ~DWORD(SCARD_STATE_CHANGED)
        }
    }
}
