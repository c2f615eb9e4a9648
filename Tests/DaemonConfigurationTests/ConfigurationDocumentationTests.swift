import Foundation
import DaemonConfiguration
import Testing
import TestSupport

/// An operator learns the daemon's options from sealtrust-scand(8), and the configuration file's keys from scand.conf(5)
/// and the example installed as /etc/sealtrust-scand/scand.conf: each must be in all three (api-proxy, api-ca and
/// api-keepalive were in neither of the last two, and feedback in neither man page).
@Suite struct ConfigurationDocumentationTests {
    @Test func everyOptionIsInTheManPagesAndTheExample() throws {
        let root = repositoryRoot()
        let manPage = try String(contentsOf: root.appendingPathComponent("man/scand.conf.5"), encoding: .utf8)
        let daemonPage = try String(contentsOf: root.appendingPathComponent("man/sealtrust-scand.8"), encoding: .utf8)
        let options = daemonPage.split(separator: "\n").filter { $0.hasPrefix(".B") }
        let example = try String(contentsOf: root.appendingPathComponent("packaging/scand.conf.example"), encoding: .utf8)
        let exampleLines = example.split(separator: "\n").map { $0.hasPrefix("#") ? $0.dropFirst() : $0 }
        let entries = manPage.split(separator: "\n").filter { $0.hasPrefix(".B") }
        for key in ConfigurationKey.allCases.map(\.rawValue) {
            let roff = key.replacingOccurrences(of: "-", with: "\\-")
            #expect(entries.contains { names($0, roff) }, "scand.conf(5) has no entry for \(key)")
            #expect(options.contains { names($0, "\\-\\-" + roff) }, "sealtrust-scand(8) has no entry for --\(key)")
            #expect(exampleLines.contains { $0.hasPrefix("\(key) = ") }, "the example configuration has no line for \(key)")
        }
    }

    /// Whether `line` names `key` as a whole word: `journal` is not named by `journal\-max\-bytes`.
    private func names(_ line: Substring, _ key: String) -> Bool {
        var rest = line[...]
        while let found = rest.range(of: key) {
            let next = rest[found.upperBound...].first
            if next.map({ !$0.isLetter && $0 != "\\" }) ?? true { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }
}
