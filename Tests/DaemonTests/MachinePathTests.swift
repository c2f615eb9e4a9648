import Foundation
import Testing
import TestSupport

/// The docs, man pages and packaging name the shared folder as `../shared/...`, never as the path it had on the
/// machine they were written on (docs/architecture.md named the protocol's spec that way).
@Suite struct MachinePathTests {
    @Test func noDocumentNamesAPathOfTheMachineItWasWrittenOn() throws {
        let root = repositoryRoot()
        let machinePath = "/" + "work/"
        var documents = ["README.md", "Makefile"]
        for folder in ["docs", "man", "packaging", "debian", "systemd", "udev", "mk"] {
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)?
                .compactMap { $0 as? String } ?? []
            documents += files.map { folder + "/" + $0 }
        }
        var named: [String] = []
        for document in documents {
            guard let text = try? String(contentsOf: root.appendingPathComponent(document), encoding: .utf8) else { continue }
            named += text.split(separator: "\n").filter { $0.contains(machinePath) }.map { "\(document): \($0)" }
        }
        #expect(documents.count > 20, "the documents were not found under \(root.path)")
        #expect(named.isEmpty, "\(named)")
    }
}
