import JSONCore
import Logging
import StationWire

/// sealtrust-scanctl's human output (`watch`, `replay`, `verify`, `status`): whatever the daemon sends, no line
/// holds a control character (C0, DEL, C1) or a bidirectional control (U+202E...), so no event can move the cursor,
/// ring the bell, forge a line or reorder what the terminal shows.
///
/// The input is read two ways, both through one formatter (a `scan` before its `verdict` is remembered):
/// as a JSON message when it parses, and as an event built from its bytes, split at each 0x00 into the
/// fields that type shows, so that raw control bytes reach every field without JSON's escapes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    var formatter = EventFormatter()
    if let message = try? JSON.parse(utf8: input) {
        show(message, with: &formatter)
    }
    if let first = input.first {
        let types = ["hello", "source", "scan", "read_error", "verdict", "error", "ack", "status", "mystery"]
        let type = types[Int(first) % types.count]
        let values = input.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { field -> JSON in
            let text = String(decoding: field, as: UTF8.self)
            // A value that reads as a number comes as one: the formatter prints numbers itself.
            if field.first == UInt8(ascii: "#"), let number = try? JSON.parse(String(text.dropFirst())) { return number }
            return .string(text)
        }
        var fields: [(String, JSON)] = [("type", .string(type))]
        let keys = ["at", "seq", "scan_id", "source", "id", "state", "detail", "code", "raw", "reason", "outcome",
                    "product_name", "brand", "identifier", "message", "retry_after_s", "station", "version", "last_seq"]
        for (key, value) in zip(keys, values) { fields.append((key, value)) }
        let rest = values.dropFirst(keys.count)
        var nested = Array(rest.prefix(6))
        if nested.count >= 2 { fields.append(("seal", .object([("status", nested.removeFirst()), ("policy", nested.removeFirst())]))) }
        if !nested.isEmpty {
            fields.append(("error", .object(zip(["kind", "http_status", "code", "detail"], nested).map { ($0, $1) })))
        }
        if rest.count > 6 { fields.append(("theft_reported", .bool(true))) }
        let scanID = fields.first { $0.0 == "scan_id" }?.1 ?? .string("s")
        show(.object([("type", "scan"), ("scan_id", scanID)] + fields.filter { $0.0 != "type" && $0.0 != "scan_id" }), with: &formatter)
        show(.object(fields), with: &formatter)
    }
    let text = String(decoding: input, as: UTF8.self)
    let escaped = TerminalText.escaped(text)
    check(!escaped.unicodeScalars.contains(where: isControl), "TerminalText.escaped left a control character")
    if !text.unicodeScalars.contains(where: isControl) { check(escaped == text, "text without a control character was changed") }
    check(TerminalText.containsControl(text) == text.unicodeScalars.contains(where: isControl), "containsControl disagrees")
    return 0
}

/// Formats `message` and checks its line.
func show(_ message: JSON, with formatter: inout EventFormatter) {
    guard let line = formatter.line(for: message) else { return }
    check(!line.unicodeScalars.contains(where: isControl), "a control character in the line for \(message.encoded())")
    _ = EventFormatter.isAlert(message)
}

func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        || [0x061C, 0x200E, 0x200F].contains(scalar.value) || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
}
