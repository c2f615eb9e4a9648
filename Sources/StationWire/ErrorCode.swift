/// The `code` of an `error` answer.
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
    case badJSON = "bad_json"
    case unknownCommand = "unknown_cmd"
    case badArgs = "bad_args"
    case lineTooLong = "line_too_long"
    case notAvailable = "not_available"
    /// The journal refused the scan or its verdict (a full disk, a read-only directory): the station cannot record,
    /// so it answers nothing it could lose, and calls no API for it. Not in protocol 1's spec: added by addition.
    case cannotRecord = "cannot_record"
}
