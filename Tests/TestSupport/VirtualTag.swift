import Foundation
import Glibc
import Synchronization

/// A virtual NTAG 424 DNA (`tools/vtag/vtag.py`) on one of vpcd's two virtual readers in the real pcscd.
///
/// Each call sends one stdin command and waits for the report that says it took effect.
public final class VirtualTag: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the tag printed; shared with the thread that reads its stdout.
    private final class Output: Sendable {
        struct Lines {
            var lines: [String] = []
            var ended = false
        }

        let state = Mutex(Lines())

        func withLock<R>(_ body: (inout Lines) -> R) -> R {
            state.withLock { body(&$0) }
        }
    }

    /// How long a command may take; `present` includes pcscd noticing the tag (it polls every 400 ms).
    public static let patience: Duration = .seconds(10)
    /// pcscd polls vpcd's readers every 400 ms; vtag's own default gap between removal and presentation.
    public static let removalNoticed: Duration = .milliseconds(600)

    public let readerName: String
    private let process: Process
    private let commands: FileHandle
    private let output = Output()

    private init(reader: Int, process: Process, commands: FileHandle) {
        self.readerName = "Virtual PCD 00 0\(reader)"
        self.process = process
        self.commands = commands
    }

    /// Reader 0 → port 35963 ("Virtual PCD 00 00"), 1 → 35964 ("Virtual PCD 00 01"). The tag starts out of the field.
    public static func start(reader: Int = 0, chip: String = "authentic", mle: Int? = nil, mode: String = "good",
                             counter: Int? = nil, presentGap: Double? = nil) throws -> VirtualTag {
        guard reader == 0 || reader == 1 else { throw Failure(description: "vpcd has readers 0 and 1, not \(reader)") }
        signal(SIGPIPE, SIG_IGN)  // a tag that died must fail the test, not kill the runner
        var arguments = [vtagScript.path, "--port", String(35963 + reader), "--chip", chip, "--mode", mode]
        if let mle { arguments += ["--mle", String(mle)] }
        if let counter { arguments += ["--counter", String(counter)] }
        if let presentGap { arguments += ["--gap", String(presentGap)] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let tag = VirtualTag(reader: reader, process: process, commands: stdin.fileHandleForWriting)
        tag.collect(stdout.fileHandleForReading)
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            let (ready, ended) = tag.output.withLock { output in (output.lines.contains { $0.hasPrefix("READY") }, output.ended) }
            if ready { return tag }
            if ended { break }
            usleep(10_000)
        }
        tag.stop()
        throw Failure(description: "vtag did not start: \(tag.transcript)")
    }

    /// Puts the tag in the field; returns once vpcd has powered it (pcscd then reports it present).
    public func present() async throws {
        try await command("present", until: { $0.hasPrefix("POWERED") }, refusedBy: { $0.hasPrefix("ERROR") || $0 == "PRESENTED already" })
    }

    /// Takes the tag out of the field, if it is in (vtag keeps it out long enough for pcscd's poll to notice).
    public func remove() async throws {
        try await command("remove", until: { $0.hasPrefix("REMOVED") })
    }

    public func set(chip: String) async throws {
        try await command("chip \(chip)", until: { $0.hasPrefix("CHIP ") })
    }

    public func set(mode: String) async throws {
        try await command("mode \(mode)", until: { $0.hasPrefix("MODE ") })
    }

    public func set(mle: Int) async throws {
        try await command("mle \(mle)", until: { $0.hasPrefix("MLE ") })
    }

    /// The SDMReadCtr before the next read: that read gives `counter + 1`.
    public func set(counter: Int) async throws {
        try await command("counter \(counter)", until: { $0.hasPrefix("COUNTER ") })
    }

    /// Returns once every line the tag wrote before this call has been collected: a reader that got an answer
    /// has it before this side has read the tag's line about it.
    public func settle() async throws {
        try await command("sync", until: { $0 == "SYNC" })
    }

    /// Every line the tag has reported so far (`APDU ...`, `READ ctr=N url=...`, `POWER on`, ...).
    public var transcript: [String] { output.withLock { $0.lines } }

    /// The URLs the tag signed, in order, with their counters.
    public var signedReads: [(counter: Int, url: String)] {
        transcript.compactMap { line in
            guard line.hasPrefix("READ ctr="), let space = line.firstIndex(of: " "),
                  let urlRange = line.range(of: " url=") else { return nil }
            let counterText = line[line.index(space, offsetBy: 5) ..< urlRange.lowerBound]
            return Int(counterText).map { ($0, String(line[urlRange.upperBound...])) }
        }
    }

    /// Waits for a line after the first `skip` lines that satisfies `matches`.
    public func waitForLine(after skip: Int = 0, timeout: Duration = patience,
                            where matches: @Sendable (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, ended) = output.withLock { output in (output.lines.dropFirst(skip).first(where: matches), output.ended) }
            if let found { return found }
            if ended { throw Failure(description: "vtag ended: \(transcript.suffix(20))") }
            if ContinuousClock.now >= deadline {
                throw Failure(description: "vtag on \(readerName): no awaited line within \(timeout); last lines \(transcript.suffix(20))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the tag (taking it out of the field) and returns once pcscd has had time to see it gone,
    /// so that whatever runs next starts with an empty reader.
    public func stop() {
        guard process.isRunning else { return }
        try? commands.write(contentsOf: Data("quit\n".utf8))
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            // SIGKILL: children of Process inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if transcript.contains("PRESENTED") {
            usleep(useconds_t(Self.removalNoticed.wholeMicroseconds))
        }
    }

    deinit {
        stop()
    }

    private func command(_ line: String, until done: @escaping @Sendable (String) -> Bool,
                         refusedBy refused: @escaping @Sendable (String) -> Bool = { $0.hasPrefix("ERROR") }) async throws {
        let mark = output.withLock { $0.lines.count }
        do {
            try commands.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw Failure(description: "vtag on \(readerName) no longer takes commands: \(error)")
        }
        let answer = try await waitForLine(after: mark) { done($0) || refused($0) }
        if refused(answer) {
            throw Failure(description: "vtag on \(readerName) refused '\(line)': \(answer)")
        }
    }

    private func collect(_ handle: FileHandle) {
        let thread = Thread { [output] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex ..< newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex ... newline)
                    output.withLock { $0.lines.append(line) }
                }
            }
            output.withLock { $0.ended = true }
        }
        thread.start()
    }

    private static var vtagScript: URL {
        repositoryRoot().appendingPathComponent("tools/vtag/vtag.py")
    }
}

private extension Duration {
    var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
