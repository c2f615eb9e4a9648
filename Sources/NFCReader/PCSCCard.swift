import CPCSCLite

/// A connection to the tag on one reader, left in place (not reset) when it ends.
final class PCSCCard {
    private let handle: SCARDHANDLE
    private let protocolInformation: UnsafePointer<SCARD_IO_REQUEST>

    init(handle: SCARDHANDLE, activeProtocol: DWORD) {
        self.handle = handle
        self.protocolInformation = cpcsc_pci(activeProtocol)
    }

    deinit {
        SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD))
    }

    /// Keeps other PC/SC clients from sending commands to the tag until `endTransaction`.
    func beginTransaction() throws(PCSCError) {
        let status = SCardBeginTransaction(handle)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardBeginTransaction") }
    }

    func endTransaction() {
        SCardEndTransaction(handle, DWORD(SCARD_LEAVE_CARD))
    }

    func transmit(_ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var response = [UInt8](repeating: 0, count: Int(MAX_BUFFER_SIZE))
        var length = DWORD(response.count)
        let status = SCardTransmit(handle, protocolInformation, command, DWORD(command.count), nil, &response, &length)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardTransmit") }
        response.removeSubrange(Int(length)...)
        return response
    }
}
