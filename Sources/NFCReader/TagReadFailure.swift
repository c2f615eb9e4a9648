/// Why a tag in the field gave no URI.
public enum TagReadFailure: Error, Sendable, Equatable {
    case noNDEFApplication
    /// No NDEF file, or one whose NDEF length is 0.
    case emptyNDEF
    case noURIRecord
    case malformedNDEF(String)
    /// The NDEF length is more than the file the capability container declares can hold.
    case lengthBeyondFile
    case statusWord(UInt16)
    case removedDuringRead
    case io(String)

    public var detail: String {
        switch self {
        case .noNDEFApplication: "the tag has no NFC Forum NDEF application (D2760000850101)"
        case .emptyNDEF: "the tag's NDEF file is missing or empty"
        case .noURIRecord: "the tag's NDEF message has no URI record"
        case .malformedNDEF(let why): "malformed NDEF: \(why)"
        case .lengthBeyondFile: "the NDEF length runs beyond the tag's NDEF file"
        case .statusWord(let word): "the tag answered status word \(hex4(word))"
        case .removedDuringRead: "the tag left the field during the read"
        case .io(let why): why
        }
    }
}

private func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
