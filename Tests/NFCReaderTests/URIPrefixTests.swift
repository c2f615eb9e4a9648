@testable import NFCReader
import Testing

/// The NFC Forum URI RTD abbreviation table, code by code.
struct URIPrefixTests {
    static let specification: [(UInt8, String)] = [
        (0x00, ""), (0x01, "http://www."), (0x02, "https://www."), (0x03, "http://"), (0x04, "https://"),
        (0x05, "tel:"), (0x06, "mailto:"), (0x07, "ftp://anonymous:anonymous@"), (0x08, "ftp://ftp."),
        (0x09, "ftps://"), (0x0A, "sftp://"), (0x0B, "smb://"), (0x0C, "nfs://"), (0x0D, "ftp://"),
        (0x0E, "dav://"), (0x0F, "news:"), (0x10, "telnet://"), (0x11, "imap:"), (0x12, "rtsp://"),
        (0x13, "urn:"), (0x14, "pop:"), (0x15, "sip:"), (0x16, "sips:"), (0x17, "tftp:"), (0x18, "btspp://"),
        (0x19, "btl2cap://"), (0x1A, "btgoep://"), (0x1B, "tcpobex://"), (0x1C, "irdaobex://"), (0x1D, "file://"),
        (0x1E, "urn:epc:id:"), (0x1F, "urn:epc:tag:"), (0x20, "urn:epc:pat:"), (0x21, "urn:epc:raw:"),
        (0x22, "urn:epc:"), (0x23, "urn:nfc:"),
    ]

    @Test(arguments: specification)
    func codeExpandsToItsPrefixInAURIRecord(_ code: UInt8, _ prefix: String) throws {
        let record = NDEFRecord(typeNameFormat: 1, type: Array("U".utf8), identifier: [], payload: [code] + Array("sealtrust.io/x".utf8))
        #expect(try record.uri() == prefix + "sealtrust.io/x")
    }

    @Test func reservedCodesExpandToNothing() {
        for code in UInt8(0x24) ... UInt8(0xFF) {
            #expect(URIPrefix.expansion(of: code) == nil, "code 0x\(String(code, radix: 16)) is reserved")
        }
    }
}
