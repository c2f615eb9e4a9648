import CPCSCLite

/// One entry of SCardGetStatusChange: what we last saw of a reader, and what pcscd says now.
struct ReaderState {
    /// The pseudo-reader whose state changes when readers come and go.
    static let plugAndPlay = "\\\\?PnP?\\Notification"

    let name: String
    var current: DWORD
    var event: DWORD = 0

    init(name: String, current: DWORD = DWORD(SCARD_STATE_UNAWARE)) {
        self.name = name
        self.current = current
    }

    var changed: Bool { event & DWORD(SCARD_STATE_CHANGED) != 0 }
    var cardPresent: Bool { event & DWORD(SCARD_STATE_PRESENT) != 0 }
    var cardAbsent: Bool { event & DWORD(SCARD_STATE_EMPTY) != 0 }
    var readerGone: Bool { event & DWORD(SCARD_STATE_UNKNOWN | SCARD_STATE_IGNORE) != 0 }
    /// pcscd counts insertions and removals in the high word; a new count means a new presentation.
    var eventCount: DWORD { event >> 16 }

    /// Makes the state just seen the one to wait away from.
    mutating func acknowledge() {
        current = event & ~DWORD(SCARD_STATE_CHANGED)
    }
}
