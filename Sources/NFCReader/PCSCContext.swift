import CPCSCLite
import Glibc

/// A connection to pcscd. Only `canceller` may be used from another thread than the owner's.
final class PCSCContext {
    let handle: SCARDCONTEXT

    private init(handle: SCARDCONTEXT) {
        self.handle = handle
    }

    static func establish() throws(PCSCError) -> PCSCContext {
        var handle: SCARDCONTEXT = 0
        let status = SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &handle)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardEstablishContext") }
        return PCSCContext(handle: handle)
    }

    deinit {
        SCardReleaseContext(handle)
    }

    var canceller: PCSCCanceller { PCSCCanceller(context: handle) }

    /// The readers pcscd knows, in its order; none is not an error.
    func readers() throws(PCSCError) -> [String] {
        while true {
            var length: DWORD = 0
            var status = SCardListReaders(handle, nil, nil, &length)
            if status == SCARD_E_NO_READERS_AVAILABLE { return [] }
            guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardListReaders") }
            var names = [CChar](repeating: 0, count: Int(length))
            status = SCardListReaders(handle, nil, &names, &length)
            if status == SCARD_E_NO_READERS_AVAILABLE { return [] }
            if status == SCARD_E_INSUFFICIENT_BUFFER { continue }  // a reader arrived between the two calls
            guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardListReaders") }
            return names.prefix(Int(length)).split(separator: 0).map { String(decoding: $0.map(UInt8.init(bitPattern:)), as: UTF8.self) }
        }
    }

    /// Blocks until a state in `states` differs from its `current` (or `timeout` ms pass: false).
    func waitForChange(_ states: inout [ReaderState], timeout: DWORD) throws(PCSCError) -> Bool {
        let names = states.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        var raw = zip(states, names).map { state, name in
            var entry = SCARD_READERSTATE()
            entry.szReader = UnsafePointer(name)
            entry.dwCurrentState = state.current
            return entry
        }
        let status = SCardGetStatusChange(handle, timeout, &raw, DWORD(raw.count))
        if status == SCARD_E_TIMEOUT { return false }
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardGetStatusChange") }
        for index in states.indices {
            states[index].event = raw[index].dwEventState
        }
        return true
    }

    func connect(to reader: String) throws(PCSCError) -> PCSCCard {
        var card: SCARDHANDLE = 0
        var activeProtocol: DWORD = 0
        let status = SCardConnect(handle, reader, DWORD(SCARD_SHARE_SHARED),
                                  DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &activeProtocol)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardConnect") }
        return PCSCCard(handle: card, activeProtocol: activeProtocol)
    }
}

extension PCSCContext {
    /// A connection to the reader itself, tag or no tag, for `PCSCCard.control`.
    func connectDirect(to reader: String) throws(PCSCError) -> PCSCCard {
        var card: SCARDHANDLE = 0
        var activeProtocol: DWORD = 0
        let status = SCardConnect(handle, reader, DWORD(SCARD_SHARE_DIRECT), 0, &card, &activeProtocol)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardConnect(direct)") }
        return PCSCCard(handle: card, activeProtocol: activeProtocol)
    }
}

/// Ends a `waitForChange` blocked on another thread (SCardCancel is meant for that).
struct PCSCCanceller: Sendable {
    let context: SCARDCONTEXT

    func cancel() {
        SCardCancel(context)
    }
}
