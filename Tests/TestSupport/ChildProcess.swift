import Foundation

/// A helper program the tests launch: its first stdout line is read with a timeout, the rest is drained so
/// the child never blocks on a full pipe, and `stop()` terminates it and waits.
///
/// `@unchecked Sendable`: `Process` is not marked Sendable; every use of it here goes through `lock`.
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    private let lock = NSLock()
    private let lineReady = DispatchSemaphore(value: 0)
    private var line: String?
    private var stopped = false

    private init(process: Process) {
        self.process = process
    }

    static func launch(executable: String, arguments: [String]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        let child = ChildProcess(process: process)
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            child.drain(reader)
        }
        return child
    }

    /// The first stdout line without its newline; nil on timeout or when the child closed stdout first.
    func firstLine(timeout: TimeInterval) -> String? {
        guard lineReady.wait(timeout: .now() + timeout) == .success else {
            return nil
        }
        lineReady.signal()
        return lock.withLock { line }
    }

    func stop() {
        lock.withLock {
            guard !stopped else {
                return
            }
            stopped = true
            if process.isRunning {
                process.terminate()
            }
            process.waitUntilExit()
        }
    }

    private func drain(_ reader: FileHandle) {
        var pending = Data()
        var signalled = false
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty {
                break
            }
            guard !signalled else {
                continue
            }
            pending.append(chunk)
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let first = String(decoding: pending[..<newline], as: UTF8.self)
                lock.withLock { line = first }
                signalled = true
                lineReady.signal()
            }
        }
        if !signalled {
            lineReady.signal()
        }
    }
}
