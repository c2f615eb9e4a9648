import Foundation

/// A fresh directory under /tmp, removed when the test is done with it.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/scanjournal-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func segments(_ journal: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }
}
