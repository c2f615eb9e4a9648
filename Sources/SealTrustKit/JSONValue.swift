import JSONCore

/// The kit's name for a JSON value: the one type the whole project reads and writes JSON with, so a
/// request body is written by the same writer as an event (the scanned string's bytes as they are).
public typealias JSONValue = JSON
