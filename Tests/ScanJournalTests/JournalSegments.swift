import Foundation
import TestSupport

extension ScratchDirectory {
    /// The segment files of the journal at `journal`, oldest first.
    func segments(_ journal: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }
}
