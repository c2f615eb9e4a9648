import CPCSCLite

/// A PC/SC call that did not succeed, keeping pcsc-lite's return code.
struct PCSCError: Error, Equatable, CustomStringConvertible {
    let code: LONG
    let function: String

    init(_ code: LONG, in function: String) {
        self.code = code
        self.function = function
    }

    var description: String {
        let text = String(cString: pcsc_stringify_error(code))
        return "\(function): \(text) (0x\(String(UInt32(truncatingIfNeeded: code), radix: 16, uppercase: true)))"
    }

    var wasCancelled: Bool { code == SCARD_E_CANCELLED }
    var isUnknownReader: Bool { code == SCARD_E_UNKNOWN_READER || code == SCARD_E_READER_UNAVAILABLE }

    /// The tag left the field: pcscd noticed before or during this call.
    var cardIsGone: Bool { code == SCARD_W_REMOVED_CARD || code == SCARD_E_NO_SMARTCARD }

    /// The exchange broke off without saying why; the reader's state tells whether the tag left.
    var exchangeFailed: Bool {
        code == SCARD_E_NOT_TRANSACTED || code == SCARD_E_COMM_DATA_LOST || code == SCARD_W_UNRESPONSIVE_CARD
            || code == SCARD_W_UNPOWERED_CARD || code == SCARD_W_RESET_CARD
    }
}
