/// The `code` of an `error` answer.
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
    case badJSON = "bad_json"
    case unknownCommand = "unknown_cmd"
    case badArgs = "bad_args"
    case lineTooLong = "line_too_long"
    case notAvailable = "not_available"
}
