/// Prometheus text exposition format 0.0.4: families with HELP and TYPE, samples with escaped labels.
struct Exposition {
    private(set) var text = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.formatted(value) + "\n"
    }

    /// Backslash, quote and line feed escaped as the format says; other control characters dropped,
    /// since a reader's name comes from a USB descriptor.
    static func escapedLabel(_ value: String) -> String {
        value.replacingScalars(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
    }

    static func formatted(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if value == .infinity { return "+Inf" }
        return String(value)
    }
}
