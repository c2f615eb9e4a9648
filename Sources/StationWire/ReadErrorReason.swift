/// Why a tag or code in view gave nothing to verify: the `reason` of a `read_error` event.
public enum ReadErrorReason: String, Sendable, Hashable, CaseIterable {
    case noNDEFApplication = "no_ndef_application"
    case emptyNDEF = "empty_ndef"
    case noURIRecord = "no_uri_record"
    case malformedNDEF = "malformed_ndef"
    case lengthBeyondFile = "length_beyond_file"
    case statusWord = "status_word"
    case removedDuringRead = "removed_during_read"
    case io
    /// A code whose bytes are not UTF-8 text.
    case invalidUTF8 = "invalid_utf8"
    /// A handheld scanner's code that stopped without its terminator (a gap over 100 ms, lost events, unplugged).
    case incomplete
    /// A keyboard-wedge scanner's key with no character in the keymap.
    case unmappedKey = "unmapped_key"
    /// A handheld scanner's code over 4,096 characters (or bytes).
    case tooLong = "too_long"
}
