/// The NFC Forum NDEF message format: short and long record headers, identifiers, chunked records.
enum NDEFMessage {
    private static let messageBegin: UInt8 = 0x80
    private static let messageEnd: UInt8 = 0x40
    private static let chunkFollows: UInt8 = 0x20
    private static let shortRecord: UInt8 = 0x10
    private static let identifierPresent: UInt8 = 0x08
    private static let empty: UInt8 = 0, unknown: UInt8 = 5, unchanged: UInt8 = 6, reserved: UInt8 = 7

    static func records(in message: [UInt8]) throws(TagReadFailure) -> [NDEFRecord] {
        var reader = ByteReader(bytes: message)
        var records: [NDEFRecord] = []
        var chunks: NDEFRecord?
        var number = 0
        while true {
            number += 1
            let header = try reader.byte("record \(number)'s header")
            guard (header & messageBegin != 0) == (number == 1) else {
                throw .malformedNDEF(number == 1 ? "the first record lacks MB" : "record \(number) repeats MB")
            }
            let format = header & 0x07
            guard format != reserved else { throw .malformedNDEF("record \(number) uses the reserved TNF 7") }
            let typeLength = Int(try reader.byte("record \(number)'s type length"))
            let payloadLength = header & shortRecord != 0
                ? Int(try reader.byte("record \(number)'s payload length"))
                : Int(try reader.take(4, "record \(number)'s payload length").reduce(0) { $0 << 8 | Int($1) })
            let identifierLength = header & identifierPresent != 0 ? Int(try reader.byte("record \(number)'s ID length")) : 0
            let type = Array(try reader.take(typeLength, "record \(number)'s type"))
            let identifier = Array(try reader.take(identifierLength, "record \(number)'s ID"))
            let payload = Array(try reader.take(payloadLength, "record \(number)'s payload"))
            let isLast = header & messageEnd != 0
            let continues = header & chunkFollows != 0
            if continues && isLast {
                throw .malformedNDEF("record \(number) is the last (ME) yet says a chunk follows (CF)")
            }

            let record: NDEFRecord
            if let first = chunks {
                guard format == unchanged, typeLength == 0, identifierLength == 0 else {
                    throw .malformedNDEF("record \(number) continues a chunked record but is not a bare TNF 6 chunk")
                }
                record = NDEFRecord(typeNameFormat: first.typeNameFormat, type: first.type,
                                    identifier: first.identifier, payload: first.payload + payload)
            } else {
                guard format != unchanged else {
                    throw .malformedNDEF("record \(number) has TNF 6 (unchanged) outside a chunked record")
                }
                guard format != empty || (typeLength == 0 && identifierLength == 0 && payloadLength == 0) else {
                    throw .malformedNDEF("record \(number) is an empty record (TNF 0) with content")
                }
                guard format != unknown || typeLength == 0 else {
                    throw .malformedNDEF("record \(number) has TNF 5 (unknown) and a type")
                }
                record = NDEFRecord(typeNameFormat: format, type: type, identifier: identifier, payload: payload)
            }
            if continues {
                chunks = record
            } else {
                chunks = nil
                records.append(record)
            }

            if isLast {
                guard reader.atEnd else { throw .malformedNDEF("bytes follow the last record (ME)") }
                return records
            }
            guard !reader.atEnd else { throw .malformedNDEF("the message ends without a last record (ME)") }
        }
    }

    /// The scan: the first URI record's URI.
    static func firstURI(in message: [UInt8]) throws(TagReadFailure) -> String {
        guard let record = try records(in: message).first(where: \.isURI) else { throw .noURIRecord }
        return try record.uri()
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    var atEnd: Bool { offset == bytes.count }

    /// `what` names the field for the failure only: it is not built for a field that is there.
    mutating func byte(_ what: @autoclosure () -> String) throws(TagReadFailure) -> UInt8 {
        let slice = try take(1, what())
        return slice[slice.startIndex]
    }

    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(TagReadFailure) -> ArraySlice<UInt8> {
        guard count <= bytes.count - offset else { throw .malformedNDEF("\(what()) runs past the end of the message") }
        defer { offset += count }
        return bytes[offset ..< offset + count]
    }
}
