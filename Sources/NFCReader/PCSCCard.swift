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

    /// pcsc-lite's SCARD_CTL_CODE(3500): the CCID escape, which hands a command to the reader's firmware.
    static let ccidEscape = DWORD(0x4200_0000 + 3500)

    /// A command to the reader rather than the tag (a direct connection's way to reach the firmware).
    func control(_ code: DWORD, _ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var response = [UInt8](repeating: 0, count: Int(MAX_BUFFER_SIZE))
        var length: DWORD = 0
        let status = SCardControl(handle, code, command, DWORD(command.count), &response, DWORD(response.count), &length)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, in: "SCardControl") }
        response.removeSubrange(Int(length)...)
        return response
    }
}
