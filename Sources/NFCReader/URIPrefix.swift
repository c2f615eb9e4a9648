/// The NFC Forum URI Record Type Definition's abbreviation table: payload byte 0 → the text it stands for.
enum URIPrefix {
    static let table: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://",
        "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:",
        "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
        "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    /// nil for the codes the specification reserves (0x24 and above).
    static func expansion(of code: UInt8) -> String? {
        Int(code) < table.count ? table[Int(code)] : nil
    }
}
