/// The ISO 7816-4 commands of the Type 4 Tag procedure, as short APDUs.
struct CommandAPDU: Equatable {
    let bytes: [UInt8]

    /// The most a short READ BINARY can ask for (Le 0x00).
    static let maxShortResponse = 256
    /// READ BINARY's offset is 15 bits (P1 bit 8 clear).
    static let maxReadOffset = 0x7FFF

    static func selectApplication(_ name: [UInt8]) -> CommandAPDU {
        CommandAPDU(bytes: [0x00, 0xA4, 0x04, 0x00, UInt8(name.count)] + name + [0x00])
    }

    static func selectFile(_ identifier: UInt16) -> CommandAPDU {
        CommandAPDU(bytes: [0x00, 0xA4, 0x00, 0x0C, 0x02, UInt8(identifier >> 8), UInt8(identifier & 0xFF)])
    }

    /// `length` is 1...256; `offset` at most `maxReadOffset`.
    static func readBinary(offset: Int, length: Int) -> CommandAPDU {
        CommandAPDU(bytes: [0x00, 0xB0, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(length & 0xFF)])
    }
}

struct ResponseAPDU: Equatable {
    let data: [UInt8]
    let statusWord: UInt16

    static let success: UInt16 = 0x9000
    static let fileNotFound: UInt16 = 0x6A82
    /// ISO 7816-4's warning "end of file reached before Le bytes": the data that came is the file's end.
    static let endOfFile: UInt16 = 0x6282

    init(_ raw: [UInt8]) throws(TruncatedResponse) {
        guard raw.count >= 2 else { throw TruncatedResponse(length: raw.count) }
        data = Array(raw.dropLast(2))
        statusWord = UInt16(raw[raw.count - 2]) << 8 | UInt16(raw[raw.count - 1])
    }
}

/// An answer too short to hold a status word: vpcd gives one when the tag vanished mid-exchange.
struct TruncatedResponse: Error, CustomStringConvertible {
    let length: Int

    var description: String { "the tag answered \(length) byte(s), less than a status word" }
}
