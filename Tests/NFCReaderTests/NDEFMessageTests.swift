@testable import NFCReader
import Testing

/// The NDEF parser on hand-built messages: what a tag can hold, well formed or not.
struct NDEFMessageTests {
    static func record(_ tnf: UInt8, type: String, id: [UInt8] = [], payload: [UInt8],
                       first: Bool = true, last: Bool = true, short: Bool = true, chunk: Bool = false) -> [UInt8] {
        var header: UInt8 = tnf
        if first { header |= 0x80 }
        if last { header |= 0x40 }
        if chunk { header |= 0x20 }
        if short { header |= 0x10 }
        if !id.isEmpty { header |= 0x08 }
        let length: [UInt8] = short ? [UInt8(payload.count)]
            : [UInt8(payload.count >> 24), UInt8(payload.count >> 16 & 0xFF), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        return [header, UInt8(type.utf8.count)] + length + (id.isEmpty ? [] : [UInt8(id.count)]) + Array(type.utf8) + id + payload
    }

    static func uriPayload(_ code: UInt8, _ rest: String) -> [UInt8] {
        [code] + Array(rest.utf8)
    }

    static let chipURL = "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"

    @Test func shortURIRecordExpandsItsPrefixAndKeepsTheRestByteForByte() throws {
        let message = Self.record(1, type: "U", payload: Self.uriPayload(0x04, String(Self.chipURL.dropFirst(8))))
        #expect(try NDEFMessage.firstURI(in: message) == Self.chipURL)
    }

    @Test func uriKeepsSpacesCaseEscapesAndNonASCIIUntouched() throws {
        let rest = "Example.COM/a%2Fb c?x=É&y=\u{1F512}\t"
        let message = Self.record(1, type: "U", payload: Self.uriPayload(0x03, rest))
        let uri = try NDEFMessage.firstURI(in: message)
        #expect(Array(uri.utf8) == Array("http://".utf8) + Array(rest.utf8))
    }

    @Test func longRecordHeaderIsRead() throws {
        let rest = "sealtrust.io/c?note=" + String(repeating: "x", count: 600)
        let message = Self.record(1, type: "U", payload: Self.uriPayload(0x04, rest), short: false)
        #expect(try NDEFMessage.firstURI(in: message) == "https://" + rest)
    }

    @Test func recordIdentifierIsSkipped() throws {
        let message = Self.record(1, type: "U", id: [0x01, 0x02, 0x03], payload: Self.uriPayload(0x04, "sealtrust.io/"))
        let records = try NDEFMessage.records(in: message)
        #expect(records == [NDEFRecord(typeNameFormat: 1, type: Array("U".utf8), identifier: [1, 2, 3],
                                       payload: Self.uriPayload(0x04, "sealtrust.io/"))])
    }

    @Test func firstURIRecordAmongSeveralIsTheScan() throws {
        let message = Self.record(1, type: "T", payload: [0x02] + Array("enhello".utf8), last: false)
            + Self.record(2, type: "text/plain", payload: Array("hi".utf8), first: false, last: false)
            + Self.record(1, type: "U", payload: Self.uriPayload(0x04, "sealtrust.io/first"), first: false, last: false, short: false)
            + Self.record(1, type: "U", payload: Self.uriPayload(0x04, "sealtrust.io/second"), first: false)
        #expect(try NDEFMessage.records(in: message).count == 4)
        #expect(try NDEFMessage.firstURI(in: message) == "https://sealtrust.io/first")
    }

    @Test func chunkedRecordIsJoined() throws {
        let message = Self.record(1, type: "U", payload: Self.uriPayload(0x04, "sealtrust.io/c?picc"), last: false, chunk: true)
            + Self.record(6, type: "", payload: Array("_data=00".utf8), first: false, last: false, chunk: true)
            + Self.record(6, type: "", payload: Array("&cmac=11".utf8), first: false)
        #expect(try NDEFMessage.firstURI(in: message) == "https://sealtrust.io/c?picc_data=00&cmac=11")
        #expect(try NDEFMessage.records(in: message).count == 1)
    }

    @Test func messageWithoutURIRecordSaysSo() throws {
        let text = Self.record(1, type: "T", payload: [0x02] + Array("enSealTrust".utf8))
        #expect(throws: TagReadFailure.noURIRecord) { try NDEFMessage.firstURI(in: text) }
        let emptyRecord: [UInt8] = [0xD0, 0x00, 0x00]
        #expect(throws: TagReadFailure.noURIRecord) { try NDEFMessage.firstURI(in: emptyRecord) }
        let absoluteURI = Self.record(3, type: "https://sealtrust.io/", payload: [])
        #expect(throws: TagReadFailure.noURIRecord) { try NDEFMessage.firstURI(in: absoluteURI) }
    }

    @Test(arguments: [
        ("first record lacks MB", [0x51, 0x01, 0x02, 0x55, 0x04, 0x61]),
        ("second record repeats MB", [0x91, 0x01, 0x02, 0x55, 0x04, 0x61, 0xD1, 0x01, 0x02, 0x55, 0x04, 0x61]),
        ("reserved TNF 7", [0xD7, 0x00, 0x00]),
        ("payload past the end", [0xD1, 0x01, 0x09, 0x55, 0x04, 0x61]),
        ("long payload length past the end", [0xC1, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x55, 0x04]),
        ("truncated header", [0xD1, 0x01]),
        ("no ME", [0x91, 0x01, 0x02, 0x55, 0x04, 0x61]),
        ("bytes after ME", [0xD1, 0x01, 0x02, 0x55, 0x04, 0x61, 0x00]),
        ("TNF 6 outside a chunk", [0xD6, 0x00, 0x00]),
        ("CF on the ME record", [0xF1, 0x01, 0x02, 0x55, 0x04, 0x61]),
        ("chunk continued with a type", [0xB1, 0x01, 0x02, 0x55, 0x04, 0x61, 0x51, 0x01, 0x01, 0x55, 0x62]),
        ("empty record with payload", [0xD0, 0x00, 0x01, 0x61]),
        ("unknown TNF with a type", [0xD5, 0x01, 0x00, 0x55]),
        ("URI record without payload", [0xD1, 0x01, 0x00, 0x55]),
        ("reserved URI prefix code", [0xD1, 0x01, 0x02, 0x55, 0x24, 0x61]),
        ("URI not UTF-8", [0xD1, 0x01, 0x03, 0x55, 0x04, 0xC3, 0x28]),
        ("garbage", [0xFF, 0xFE, 0xFD, 0xFC]),
        ("nothing at all", []),
    ] as [(String, [UInt8])])
    func malformedMessageIsRefused(_ what: String, _ message: [UInt8]) {
        let outcome = Result { try NDEFMessage.firstURI(in: message) }
        guard case .failure(let error) = outcome, let failure = error as? TagReadFailure,
              case .malformedNDEF(let detail) = failure else {
            Issue.record("\(what): expected malformed_ndef, got \(outcome)")
            return
        }
        #expect(!detail.isEmpty)
    }

    @Test func malformedURIBytesAreNamed() {
        #expect(throws: TagReadFailure.malformedNDEF("URI record is not valid UTF-8")) {
            try NDEFMessage.firstURI(in: [0xD1, 0x01, 0x03, 0x55, 0x04, 0xC3, 0x28])
        }
        #expect(throws: TagReadFailure.malformedNDEF("URI record with reserved prefix code 0x24")) {
            try NDEFMessage.firstURI(in: [0xD1, 0x01, 0x02, 0x55, 0x24, 0x61])
        }
    }
}
