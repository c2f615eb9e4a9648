import Foundation

/// Lines from a child's stdout, read on a thread of their own, taken with a deadline.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []

    init(handle: FileHandle) {
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    condition.lock()
                    lines.append(line)
                    condition.signal()
                    condition.unlock()
                }
            }
        }
    }

    func next(timeout: Duration) -> String? {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            guard condition.wait(until: deadline) else { return nil }
        }
        return lines.removeFirst()
    }
}
