import Foundation
import Glibc
import Synchronization

/// A child process whose stdout lines are timestamped the moment they are read, on a thread of their own.
final class LineTap: Sendable {
    let pid: pid_t
    let input: FileHandle?
    private let received = Received()

    private final class Received: Sendable {
        let lines = Mutex<[(at: ContinuousClock.Instant, text: String)]>([])
    }

    init(_ executable: String, _ arguments: [String], takesInput: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let inputPipe = takesInput ? Pipe() : nil
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        pid = process.processIdentifier
        input = inputPipe?.fileHandleForWriting
        let reading = output.fileHandleForReading.fileDescriptor
        Thread { [received] in
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(reading, &chunk, chunk.count)
                if count <= 0 { return }
                let now = ContinuousClock.now
                buffer.append(contentsOf: chunk[0..<count])
                var fresh: [(at: ContinuousClock.Instant, text: String)] = []
                while let newline = buffer.firstIndex(of: 0x0A) {
                    fresh.append((now, String(decoding: buffer[..<newline], as: UTF8.self)))
                    buffer.removeSubrange(...newline)
                }
                received.lines.withLock { $0 += fresh }
            }
        }.start()
    }

    func send(_ line: String) {
        input?.write(Data((line + "\n").utf8))
    }

    var count: Int { received.lines.withLock { $0.count } }

    /// When the first line from the `since`-th on (0 is the tap's first) containing `marker` arrived. Only the lines
    /// since a sample began are searched: a search of every line so far, polled while the sample runs, would keep a
    /// core busy for longer each sample and delay the very processes being measured.
    func arrival(of marker: String, since index: Int, alsoContaining other: String? = nil) -> ContinuousClock.Instant? {
        received.lines.withLock { lines in
            lines[min(index, lines.count)...].first { $0.text.contains(marker) && other.map($0.text.contains) ?? true }?.at
        }
    }

    func lastLine() -> (at: ContinuousClock.Instant, text: String)? {
        received.lines.withLock { $0.last }
    }

    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
