/// The NFC Forum Type 4 Tag read procedure over one connection to a tag.
///
/// From the NDEF file's SELECT to its last READ BINARY nothing else is sent: an NTAG 424 DNA
/// counts a read at the first READ BINARY after a SELECT and keeps that count for the reads
/// that follow, so one unbroken run gives one consistently signed URL.
struct Type4Tag {
    static let ndefApplication: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    let transmit: (CommandAPDU) throws -> [UInt8]

    /// The NDEF message, read in as few commands as MLe allows.
    func readNDEFMessage() throws -> [UInt8] {
        try select(.selectApplication(Self.ndefApplication), missing: .noNDEFApplication)
        try select(.selectFile(CapabilityContainer.fileIdentifier), missing: .noNDEFApplication)
        let container = try CapabilityContainer(read(offset: 0, length: CapabilityContainer.length))
        try select(.selectFile(container.ndefFileIdentifier), missing: .emptyNDEF)

        let chunk = min(container.maxReadLength, CommandAPDU.maxShortResponse)
        // NLEN and the start of the message come in one READ BINARY.
        var file = try read(offset: 0, length: min(chunk, container.ndefFileSize))
        guard file.count >= 2 else { throw TagReadFailure.malformedNDEF("the NDEF file gave \(file.count) byte(s), no NLEN") }
        let messageLength = Int(file[0]) << 8 | Int(file[1])
        guard messageLength > 0 else { throw TagReadFailure.emptyNDEF }
        guard messageLength <= container.ndefFileSize - 2 else { throw TagReadFailure.lengthBeyondFile }
        let end = 2 + messageLength
        while file.count < end {
            guard file.count <= CommandAPDU.maxReadOffset else {
                throw TagReadFailure.malformedNDEF("NDEF message beyond READ BINARY's 32 KiB reach")
            }
            let part = try read(offset: file.count, length: min(chunk, end - file.count))
            guard !part.isEmpty else { throw TagReadFailure.lengthBeyondFile }
            file += part
        }
        return Array(file[2 ..< end])
    }

    private func select(_ command: CommandAPDU, missing: TagReadFailure) throws {
        let response = try ResponseAPDU(transmit(command))
        switch response.statusWord {
        case ResponseAPDU.success: return
        case ResponseAPDU.fileNotFound: throw missing
        default: throw TagReadFailure.statusWord(response.statusWord)
        }
    }

    /// A file shorter than its capability container says ends a read early with 6282 and the bytes it
    /// has: those are read as the file's end, so a bad message in them is found by its NLEN, not lost
    /// to a status word.
    private func read(offset: Int, length: Int) throws -> [UInt8] {
        let response = try ResponseAPDU(transmit(.readBinary(offset: offset, length: length)))
        switch response.statusWord {
        case ResponseAPDU.success, ResponseAPDU.endOfFile: return Array(response.data.prefix(length))
        default: throw TagReadFailure.statusWord(response.statusWord)
        }
    }
}
