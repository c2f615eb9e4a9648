import SealTrustKit
import Testing

/// One scanned string and what `ScanURL` must make of it.
struct ScanCase: Sendable, CustomTestStringConvertible {
    let scanned: String
    let expected: ScanURL?
    var extraHosts: [String] = []
    /// True when `read` must refuse it as a chip link with no usable proof.
    var withoutProof = false
    /// For a chip: the raw `picc_data` and `cmac` the proof must hold.
    var chipValues: [String]? = nil

    var testDescription: String { scanned.debugDescription }

    static func none(_ scanned: String, extraHosts: [String] = []) -> ScanCase {
        ScanCase(scanned: scanned, expected: nil, extraHosts: extraHosts)
    }
    static func noProof(_ scanned: String) -> ScanCase {
        ScanCase(scanned: scanned, expected: nil, withoutProof: true)
    }
    static func serial(_ scanned: String, _ serial: String, gtin: String? = nil, lot: String? = nil, cpv: String? = nil,
                       extraHosts: [String] = []) -> ScanCase {
        ScanCase(scanned: scanned, expected: .printedSerial(PrintedSerial(serial: serial, gtin: gtin, lot: lot, cpv: cpv)),
                 extraHosts: extraHosts)
    }
    static func chip(_ url: String, _ piccData: String, _ cmac: String) -> ScanCase {
        ScanCase(scanned: url, expected: nil, chipValues: [piccData, cmac])
    }
    static func reference(_ scanned: String, _ gtin: String) -> ScanCase {
        ScanCase(scanned: scanned, expected: .productReference(gtin: gtin))
    }
}

let vectorPICC = "EF963FF7828658A599F3041510671E88"
let vectorCMAC = "94EED9EE65337086"
let vectorURL = "https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"

/// Checks a case, and that whatever comes back is the scanned text's own bytes.
private func check(_ scanCase: ScanCase) {
    let read = ScanURL.read(scanCase.scanned, extraHosts: scanCase.extraHosts)
    #expect(ScanURL.isChipLinkWithoutProof(scanCase.scanned, extraHosts: scanCase.extraHosts) == scanCase.withoutProof)
    if let chipValues = scanCase.chipValues {
        guard case .chip(let proof) = read else {
            Issue.record("not a chip: \(String(describing: read))")
            return
        }
        #expect(Array(proof.url.utf8) == Array(scanCase.scanned.utf8))
        #expect([proof.piccData, proof.cmac].map { Array($0.utf8) } == chipValues.map { Array($0.utf8) })
    } else {
        #expect(read == scanCase.expected)
    }
}

@Suite("ScanURL rule 1: an absolute https URI; scheme and host case-insensitive, path and query not")
struct ScanURLSchemeTests {
    @Test(arguments: [
        ScanCase.serial("HTTPS://SEALTRUST.IO/p/SN-1", "SN-1"),
        ScanCase.serial("HtTpS://SealTrust.Io/p/sn-00042", "sn-00042"),
        ScanCase.none("http://sealtrust.io/p/SN-1"),
        ScanCase.none("ftp://sealtrust.io/p/SN-1"),
        ScanCase.none("sealtrust.io/p/SN-1"),
        ScanCase.none("//sealtrust.io/p/SN-1"),
        ScanCase.none("https:sealtrust.io/p/SN-1"),
        ScanCase.none("https:/sealtrust.io/p/SN-1"),
        ScanCase.none("https:///p/SN-1"),
        ScanCase.none("https://sealtrust.io"),
        ScanCase.none("https://sealtrust.io/"),
        ScanCase.none("https://sealtrust.io?p=SN-1"),
        ScanCase.none("https://sealtrust.io/p/SN-1#label"),
        ScanCase.none("https://sealtrust.io/P/SN-1"),
        ScanCase.none("https://sealtrust.io/C?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.none("https://sealtrust.io/p/SN 1"),
        ScanCase.none("https://sealtrust.io/p/SN<1>"),
        ScanCase.none("https://sealtrust.io/p/SN\"1"),
        ScanCase.none("https://sealtrust.io/p/SN%G1"),
        ScanCase.none("https://sealtrust.io/p/SN%4"),
        ScanCase.none("https://sealtrust.io/p/SN%"),
        ScanCase.none("https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)%"),
        ScanCase.none("WIFI:S:Maison;T:WPA;P:secret;;"),
        ScanCase.none("Chronograph 42"),
        ScanCase.none(""),
        ScanCase.none("https://sealtrust.io/passport/0x6f1c"),
    ])
    func scheme(_ scanCase: ScanCase) { check(scanCase) }
}

@Suite("ScanURL rule 2: SealTrust hosts, extra hosts exactly, no port, no user info")
struct ScanURLHostTests {
    @Test(arguments: [
        ScanCase.reference("https://id.sealtrust.io/01/03701234567890", "03701234567890"),
        ScanCase.serial("https://a.b.sealtrust.io/p/SN-1", "SN-1"),
        ScanCase.serial("https://ID.SealTrust.IO/p/SN-1", "SN-1"),
        ScanCase.none("https://evilsealtrust.io/p/SN-1"),
        ScanCase.none("https://sealtrust.io.evil.example/p/SN-1"),
        ScanCase.none("https://sealtrust.com/p/SN-1"),
        ScanCase.none("https://sealtrust.io./p/SN-1"),
        ScanCase.none("https://.sealtrust.io/p/SN-1"),
        ScanCase.none("https://a..sealtrust.io/p/SN-1"),
        ScanCase.none("https://sealtrust%2Eio/p/SN-1"),
        ScanCase.none("https://[::1]/p/SN-1"),
        ScanCase.none("https://sealtrust.io:443/p/SN-1"),
        ScanCase.none("https://sealtrust.io:/p/SN-1"),
        ScanCase.none("https://user@sealtrust.io/p/SN-1"),
        ScanCase.none("https://user:secret@sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.none("https://sealtrust.io@evil.example/p/SN-1"),
        ScanCase.none("https://id.gs1.org/01/09506000134352/21/ABC123"),
        ScanCase.none("https://example.com/01/09506000134352/10/LOT9/21/12345"),
        ScanCase.none("https://brand.example/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.serial("https://resolver.maison-exemple.fr/01/03701234567890/21/SN-7", "SN-7", gtin: "03701234567890",
                        extraHosts: ["resolver.maison-exemple.fr"]),
        ScanCase.serial("https://RESOLVER.maison-exemple.FR/p/SN-7", "SN-7", extraHosts: ["Resolver.Maison-Exemple.fr"]),
        ScanCase.none("https://resolver.maison-exemple.fr/01/03701234567890/21/SN-7"),
        ScanCase.none("https://eu.resolver.maison-exemple.fr/p/SN-7", extraHosts: ["resolver.maison-exemple.fr"]),
        ScanCase.none("https://maison-exemple.fr/p/SN-7", extraHosts: ["resolver.maison-exemple.fr"]),
        ScanCase.none("https://resolver.maison-exemple.fr:8443/p/SN-7", extraHosts: ["resolver.maison-exemple.fr"]),
    ])
    func host(_ scanCase: ScanCase) { check(scanCase) }

    @Test func extraHostChipLinkIsAChip() {
        let scanned = "https://resolver.maison-exemple.fr/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"
        #expect(ScanURL.read(scanned, extraHosts: ["resolver.maison-exemple.fr"]) != nil)
        #expect(ScanURL.isChipLinkWithoutProof("https://resolver.maison-exemple.fr/c", extraHosts: ["resolver.maison-exemple.fr"]))
        #expect(!ScanURL.isChipLinkWithoutProof("https://resolver.maison-exemple.fr/c"))
    }
}

@Suite("ScanURL rule 3: chip links keep the string and raw parameter values")
struct ScanURLChipTests {
    @Test(arguments: [
        ScanCase.chip(vectorURL, vectorPICC, vectorCMAC),
        ScanCase.chip("https://sealtrust.io/c?picc_data=ef963ff7828658a599f3041510671e88&cmac=94eed9ee65337086",
             "ef963ff7828658a599f3041510671e88", "94eed9ee65337086"),
        ScanCase.chip("https://sealtrust.io/c?cmac=\(vectorCMAC)&picc_data=\(vectorPICC)", vectorPICC, vectorCMAC),
        ScanCase.chip("https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)&tt=CC", vectorPICC, vectorCMAC),
        ScanCase.chip("https://sealtrust.io/c?tt=OO&picc_data=\(vectorPICC)&cmac=\(vectorCMAC)", vectorPICC, vectorCMAC),
        ScanCase.chip("https://sealtrust.io/c?picc_data=EF%39%36&cmac=%2a%2A", "EF%39%36", "%2a%2A"),
        ScanCase.chip("https://sealtrust.io/c?picc_data=A=B&cmac=C+D", "A=B", "C+D"),
        ScanCase.chip("https://sealtrust.io/c?&picc_data=\(vectorPICC)&&cmac=\(vectorCMAC)&", vectorPICC, vectorCMAC),
        ScanCase.chip("https://id.sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)", vectorPICC, vectorCMAC),
        ScanCase.chip("HTTPS://SEALTRUST.IO/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)", vectorPICC, vectorCMAC),
        ScanCase.noProof("https://sealtrust.io/c"),
        ScanCase.noProof("https://sealtrust.io/c?"),
        ScanCase.noProof("https://sealtrust.io/c?picc_data=\(vectorPICC)"),
        ScanCase.noProof("https://sealtrust.io/c?cmac=\(vectorCMAC)&tt=CC"),
        ScanCase.noProof("https://sealtrust.io/c?picc_data=&cmac=\(vectorCMAC)"),
        ScanCase.noProof("https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac="),
        ScanCase.noProof("https://sealtrust.io/c?picc_data&cmac=\(vectorCMAC)"),
        ScanCase.noProof("https://sealtrust.io/c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)&cmac=\(vectorCMAC)"),
        ScanCase.noProof("https://sealtrust.io/c?picc_data=\(vectorPICC)&picc_data=&cmac=\(vectorCMAC)"),
        ScanCase.noProof("https://sealtrust.io/c?PICC_DATA=\(vectorPICC)&CMAC=\(vectorCMAC)"),
        ScanCase.noProof("https://sealtrust.io/c?picc%5Fdata=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.noProof("https://shop.sealtrust.io/c?uid=04DE5F1EACC040"),
        ScanCase.none("https://sealtrust.io/c/?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.none("https://sealtrust.io/c/x?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
        ScanCase.none("https://sealtrust.io//c?picc_data=\(vectorPICC)&cmac=\(vectorCMAC)"),
    ])
    func chipLink(_ scanCase: ScanCase) { check(scanCase) }
}

@Suite("ScanURL rule 4: /p/{serial}, exactly two non-empty segments, query ignored")
struct ScanURLShortFormTests {
    @Test(arguments: [
        ScanCase.serial("https://sealtrust.io/p/SN-00042", "SN-00042"),
        ScanCase.serial("https://sealtrust.io/p/0042", "0042"),
        ScanCase.none("https://sealtrust.io/p/SN-1?utm_source=qr&x=%ZZ"),
        ScanCase.serial("https://sealtrust.io/p/SN-1?utm_source=qr", "SN-1"),
        ScanCase.serial("https://sealtrust.io/p/a:b@c!$'()*+,;=~", "a:b@c!$'()*+,;=~"),
        ScanCase.none("https://sealtrust.io/p"),
        ScanCase.none("https://sealtrust.io/p/"),
        ScanCase.none("https://sealtrust.io/p/SN-1/"),
        ScanCase.none("https://sealtrust.io/p//SN-1"),
        ScanCase.none("https://sealtrust.io/p/SN/1"),
        ScanCase.none("https://sealtrust.io/serial/SN-1"),
    ])
    func shortForm(_ scanCase: ScanCase) { check(scanCase) }
}

@Suite("ScanURL rule 5: GS1 Digital Link, GTIN as printed, qualifiers 22, 10, 21 in order")
struct ScanURLDigitalLinkTests {
    static let gtin = "03701234567890"

    @Test(arguments: [
        ScanCase.serial("https://id.sealtrust.io/01/\(gtin)/21/SN-00042", "SN-00042", gtin: gtin),
        ScanCase.reference("https://id.sealtrust.io/01/\(gtin)", gtin),
        ScanCase.reference("https://sealtrust.io/01/12345670", "12345670"),
        ScanCase.reference("https://id.sealtrust.io/01/012345678905", "012345678905"),
        ScanCase.reference("https://id.sealtrust.io/01/3701234567890", "3701234567890"),
        ScanCase.serial("https://id.sealtrust.io/01/12345670/21/7", "7", gtin: "12345670"),
        ScanCase.serial("https://id.sealtrust.io/01/03701234567891/21/X", "X", gtin: "03701234567891"),
        ScanCase.serial("https://id.sealtrust.io/01/\(gtin)/22/V2/10/L7/21/S9", "S9", gtin: gtin, lot: "L7", cpv: "V2"),
        ScanCase.serial("https://id.sealtrust.io/01/\(gtin)/10/L7/21/S9", "S9", gtin: gtin, lot: "L7"),
        ScanCase.serial("https://id.sealtrust.io/01/\(gtin)/22/V2/21/S9", "S9", gtin: gtin, cpv: "V2"),
        ScanCase.serial("https://id.sealtrust.io/01/\(gtin)/21/S9?17=261231&linkType=gs1:pip", "S9", gtin: gtin),
        ScanCase.reference("https://id.sealtrust.io/01/\(gtin)/10/L7", gtin),
        ScanCase.reference("https://id.sealtrust.io/01/\(gtin)/22/V2", gtin),
        ScanCase.reference("https://id.sealtrust.io/01/\(gtin)?17=261231", gtin),
        ScanCase.none("https://id.sealtrust.io/01/1234567"),
        ScanCase.none("https://id.sealtrust.io/01/123456789"),
        ScanCase.none("https://id.sealtrust.io/01/1234567890"),
        ScanCase.none("https://id.sealtrust.io/01/12345678901"),
        ScanCase.none("https://id.sealtrust.io/01/123456789012345"),
        ScanCase.none("https://id.sealtrust.io/01/0370123456789X"),
        ScanCase.none("https://id.sealtrust.io/01/%303701234567890"),
        ScanCase.none("https://id.sealtrust.io/01/０３７０１２３４５６７８９０"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21/S9/10/L7"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/10/L7/22/V2/21/S9"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21/A/21/B"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21/S9/235/TPX"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/17/261231"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)//21/S9"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21/"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21/S9/"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/"),
        ScanCase.none("https://id.sealtrust.io/01/\(gtin)/21"),
        ScanCase.none("https://id.sealtrust.io/gtin/\(gtin)/21/S9"),
        ScanCase.none("https://id.sealtrust.io/shop/01/\(gtin)/21/S9"),
    ])
    func digitalLink(_ scanCase: ScanCase) { check(scanCase) }
}

@Suite("ScanURL rule 6: serial and lot percent-decoded once, otherwise exactly as printed")
struct ScanURLDecodingTests {
    @Test(arguments: [
        ScanCase.serial("https://sealtrust.io/p/SN%2F1", "SN/1"),
        ScanCase.serial("https://sealtrust.io/p/a%2fb", "a/b"),
        ScanCase.serial("https://sealtrust.io/p/SN%252F1", "SN%2F1"),
        ScanCase.serial("https://sealtrust.io/p/SN+1", "SN+1"),
        ScanCase.serial("https://sealtrust.io/p/%20SN%20", " SN "),
        ScanCase.serial("https://sealtrust.io/p/%C3%A9t%C3%A9", "été"),
        ScanCase.serial("https://sealtrust.io/p/%c3%a9", "é"),
        ScanCase.serial("https://sealtrust.io/p/été-1", "été-1"),
        ScanCase.serial("https://id.sealtrust.io/01/03701234567890/10/LOT%2F7/21/000%2042", "000 42",
                        gtin: "03701234567890", lot: "LOT/7"),
        ScanCase.serial("https://id.sealtrust.io/01/03701234567890/22/a%26b/21/x", "x", gtin: "03701234567890", cpv: "a&b"),
        ScanCase.none("https://sealtrust.io/p/%FF"),
        ScanCase.none("https://sealtrust.io/p/%C3"),
        ScanCase.none("https://id.sealtrust.io/01/03701234567890/10/%C0%AF/21/x"),
    ])
    func decoding(_ scanCase: ScanCase) { check(scanCase) }

    @Test func decomposedCharactersStayDecomposed() throws {
        let decomposed = "e\u{301}"
        let read = ScanURL.read("https://sealtrust.io/p/\(decomposed)-%E2%84%AB")
        guard case .printedSerial(let printed) = read else {
            Issue.record("not a printed serial: \(String(describing: read))")
            return
        }
        #expect(Array(printed.serial.utf8) == Array("e\u{301}-\u{212B}".utf8))
    }
}

@Suite("ScanURL rule 7: white space, control characters, invalid UTF-8")
struct ScanURLInputTests {
    @Test(arguments: [
        " " + vectorURL, vectorURL + " ", "\u{00A0}" + vectorURL, vectorURL + "\u{00A0}", "\t" + vectorURL,
        vectorURL + "\n", vectorURL + "\r", vectorURL + "\r\n", "\u{3000}https://sealtrust.io/p/SN-1",
        "https://sealtrust.io/p/SN-1\u{2028}", "\u{FEFF}https://sealtrust.io/p/SN-1",
        "https://sealtrust.io/p/SN\u{0}1", "https://sealtrust.io/p/SN\u{7F}1", "https://sealtrust.io/p/SN\u{85}1",
        "https://sealtrust.io/p/SN\u{1B}[0m", "https://sealtrust.io/p/SN\u{00A0}1", "https://sealtrust.io/c?picc_data=\(vectorPICC)\u{9}&cmac=\(vectorCMAC)",
    ])
    func refused(_ scanned: String) {
        check(.none(scanned))
    }

    @Test func invalidUTF8IsNotACode() {
        var bytes = Array("https://sealtrust.io/p/SN-".utf8)
        #expect(ScanURL.read(bytes: bytes + Array("1".utf8)) == .printedSerial(PrintedSerial(serial: "SN-1")))
        #expect(ScanURL.read(bytes: bytes + [0xFF]) == nil)
        #expect(ScanURL.read(bytes: bytes + [0xC0, 0xAF]) == nil)
        #expect(ScanURL.read(bytes: bytes + [0xED, 0xA0, 0x80]) == nil)
        bytes = Array(vectorURL.utf8)
        guard case .chip(let proof) = ScanURL.read(bytes: bytes) else {
            Issue.record("the vector URL read from bytes is not a chip")
            return
        }
        #expect(Array(proof.url.utf8) == bytes)
    }
}
