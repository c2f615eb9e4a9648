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
}
