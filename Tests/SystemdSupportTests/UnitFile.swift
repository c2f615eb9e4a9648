import Foundation

/// A systemd unit or a `key = value` file read as the tools read it: sections, repeated keys in order, comments skipped.
struct UnitFile: Sendable {
    let entries: [(section: String, key: String, value: String)]

    init(path: String) throws {
        var section = ""
        var entries: [(section: String, key: String, value: String)] = []
        for rawLine in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            entries.append((section, line[..<equals].trimmingCharacters(in: .whitespaces),
                            line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
        }
        self.entries = entries
    }

    /// Every value of `key`, in order (a repeated key accumulates, as in systemd and the daemon's configuration).
    func values(_ key: String, in section: String? = nil) -> [String] {
        entries.filter { $0.key == key && (section == nil || $0.section == section) }.map(\.value)
    }

    func value(_ key: String, in section: String? = nil) -> String? {
        values(key, in: section).last
    }
}
