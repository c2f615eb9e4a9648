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
            // `lane NAME = SOURCE, ...` has the lane's name before `=`.
            #expect(exampleLines.contains { $0.hasPrefix("\(key) = ") || (key == "lane" && $0.hasPrefix("lane ")) },
                    "the example configuration has no line for \(key)")
        }
    }

    /// The README's synopsis is the daemon's usage: an option left out of it (`--texts`, `--api-proxy`, `--api-ca`,
    /// `--api-keepalive` were) is one an operator reading the README never learns of.
    @Test func theReadmesSynopsisIsTheDaemonsUsage() throws {
        let readme = try String(contentsOf: repositoryRoot().appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\nsealtrust-scand [--config PATH]"))
        let synopsis = readme[start.lowerBound...].prefix { $0 != "`" }
        for key in ConfigurationKey.allCases.map(\.rawValue) + ["config", "check-config", "version", "help"] {
            #expect(synopsis.contains("[--\(key) ") || synopsis.contains("[--\(key)]") || synopsis.contains(" --\(key) "),
                    "the README's synopsis leaves out --\(key)")
        }
    }

    /// The lists of man pages in the README and docs/installing.md are the pages in man/ (sealtrust-texts(5) was
    /// missing); `make test-deb` checks them against the package too (packaging/check-doc-lists.sh).
    @Test func theListsOfManPagesAreThePages() throws {
        let root = repositoryRoot()
        let pages = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("man").path)
            .map { page in "\(page.split(separator: ".").dropLast().joined(separator: "."))(\(page.split(separator: ".").last ?? ""))" }
        for document in ["README.md", "docs/installing.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            let lists = text.split(separator: "\n").filter { $0.contains("man pages") && $0.contains("sealtrust-scand(8)") }
            #expect(!lists.isEmpty, "\(document) has no list of man pages")
            for list in lists {
                let named = list.matches(of: /[a-z.-]+\([0-9]\)/).map { String($0.output) }
                #expect(Set(named) == Set(pages), "\(document): \(named.sorted()) against man/: \(pages.sorted())")
            }
        }
    }

    /// sealtrust-scand(8) names every guide the package installs in /usr/share/doc/sealtrust-scand/docs/.
    @Test func theDaemonsManPageNamesEveryGuide() throws {
        let root = repositoryRoot()
        let page = try String(contentsOf: root.appendingPathComponent("man/sealtrust-scand.8"), encoding: .utf8)
        for guide in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path) where guide.hasSuffix(".md") {
            #expect(page.contains(".I \(guide)\n"), "sealtrust-scand(8) does not name \(guide)")
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
