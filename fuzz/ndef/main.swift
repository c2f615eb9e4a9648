@testable import NFCReader

/// The input is a tag: a capability container (its first 15 bytes) and an NDEF file (the rest), read
/// by the Type 4 Tag procedure from a simulated tag whose file ends where the input does (a read past
/// it answers 6282 with what there is). Nothing traps; after NLEN is known no read asks beyond NLEN's
/// message; the message read is the file's bytes; a parsed message prints back to the same records;
/// a URI keeps its bytes after the prefix.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let containerBytes = Array(input.prefix(CapabilityContainer.length))
    let file = Array(input.dropFirst(CapabilityContainer.length))
    let tag = SimulatedTag(container: containerBytes, file: file)
    let message: [UInt8]
    do {
        message = try Type4Tag(transmit: tag.answer).readNDEFMessage()
    } catch {
        return 0
    }
    let served = tag.ndefFileContent
    check(served.count >= 2 + message.count && Array(served[2..<(2 + message.count)]) == message, "the message is not the file's bytes")
    check(tag.readsPastMessage == 0, "a READ BINARY asked beyond NLEN's message")
    guard let records = try? NDEFMessage.records(in: message) else { return 0 }
    check((try? NDEFMessage.records(in: encode(records))) == records, "records do not read back from their print")
    if let uri = try? NDEFMessage.firstURI(in: message), let record = records.first(where: \.isURI) {
        check(Array(uri.utf8).suffix(record.payload.count - 1).elementsEqual(record.payload.dropFirst()), "a URI changed its bytes")
    }
    return 0
}

/// One record after another, unchunked: short records when the payload fits a byte.
func encode(_ records: [NDEFRecord]) -> [UInt8] {
    var bytes: [UInt8] = []
    for (index, record) in records.enumerated() {
        let short = record.payload.count < 256
        var header = record.typeNameFormat
        if index == 0 { header |= 0x80 }
        if index == records.count - 1 { header |= 0x40 }
        if short { header |= 0x10 }
        if !record.identifier.isEmpty { header |= 0x08 }
        bytes += [header, UInt8(record.type.count)]
        let length = record.payload.count
        bytes += short ? [UInt8(length)] : [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        if !record.identifier.isEmpty { bytes.append(UInt8(record.identifier.count)) }
        bytes += record.type + record.identifier + record.payload
    }
    return bytes
}

/// A Type 4 tag over two files, answering as vtag does.
final class SimulatedTag {
    let container: [UInt8]
    let file: [UInt8]
    private var selected: UInt16?
    private var reads = 0
    private var fileSelects = 0
    private(set) var readsPastMessage = 0
    /// The file the reader took for the NDEF file (a container may name itself, E103, as that file).
    private(set) var ndefFileContent: [UInt8] = []

    init(container: [UInt8], file: [UInt8]) {
        self.container = container
        self.file = file
    }

    func answer(_ command: CommandAPDU) -> [UInt8] {
        let bytes = command.bytes
        switch bytes[1] {
        case 0xA4 where bytes[2] == 0x04:
            return [0x90, 0x00]
        case 0xA4:
            selected = UInt16(bytes[5]) << 8 | UInt16(bytes[6])
            fileSelects += 1
            return [0x90, 0x00]
        case 0xB0:
            let offset = Int(bytes[2]) << 8 | Int(bytes[3])
            let length = bytes[4] == 0 ? 256 : Int(bytes[4])
            let content = selected == CapabilityContainer.fileIdentifier ? container : file
            if fileSelects >= 2 {  // after the container's SELECT and read, the NDEF file's
                reads += 1
                ndefFileContent = content
                if reads > 1, content.count >= 2, offset + length > 2 + (Int(content[0]) << 8 | Int(content[1])) { readsPastMessage += 1 }
            }
            guard offset <= content.count else { return [0x6B, 0x00] }
            let data = Array(content[offset..<min(content.count, offset + length)])
            return data + (data.count == length ? [0x90, 0x00] : [0x62, 0x82])
        default:
            return [0x6D, 0x00]
        }
    }
}
