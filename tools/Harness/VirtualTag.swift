import Foundation
import Glibc
import Synchronization

/// A virtual NTAG 424 DNA (`tools/vtag/vtag.py`) on one of vpcd's two virtual readers in this process's own
/// pcscd (`PrivatePCSCD`).
///
/// Each call sends one stdin command and waits for the report that says it took effect.
public final class VirtualTag: Sendable {
    /// How long a command may take; `present` includes pcscd noticing the tag (it polls every 400 ms).
    public static let patience: Duration = .seconds(10)
    /// pcscd polls vpcd's readers every 400 ms; vtag's own default gap between removal and presentation.
    public static let removalNoticed: Duration = .milliseconds(600)

    public let readerName: String
    private let process: ChildProcess
    private let stopped = Atomic(false)

    private init(reader: Int, process: ChildProcess) {
        self.readerName = PrivatePCSCD.readerNames[reader]
        self.process = process
    }

    /// Reader 0 is "Virtual PCD 00 00", 1 is "Virtual PCD 00 01", of `PrivatePCSCD.shared()`. The tag starts out of the field.
    /// `stampPseudoAPDUs`: each `PSEUDO` line ends with ` at=NS`, the CLOCK_MONOTONIC nanoseconds of its arrival.
    public static func start(reader: Int = 0, chip: String = "authentic", mle: Int? = nil, mode: String = "good",
                             counter: Int? = nil, stampPseudoAPDUs: Bool = false) throws -> VirtualTag {
        guard PrivatePCSCD.readerNames.indices.contains(reader) else {
            throw HarnessError("vpcd has readers 0 and 1, not \(reader)")
        }
        let pcscd = try PrivatePCSCD.shared()
        var arguments = [vtagScript.path, "--port", String(pcscd.port(reader: reader)), "--chip", chip, "--mode", mode]
        if let mle { arguments += ["--mle", String(mle)] }
        if let counter { arguments += ["--counter", String(counter)] }
        // `remove` and `stop` return once pcscd saw the tag leave, so a `present` needs no gap of its own after them.
        arguments += ["--gap", "0"]
        if stampPseudoAPDUs { arguments.append("--stamp-pseudo") }
        let tag = VirtualTag(reader: reader, process: try ChildProcess("/usr/bin/python3", arguments))
        do {
            _ = try tag.process.waitForLineBlocking(timeout: patience) { $0.hasPrefix("READY") }
        } catch {
            tag.stop()
            throw HarnessError("vtag did not start: \(error)")
        }
        return tag
    }

    /// Puts the tag in the field; returns once vpcd has powered it (pcscd then reports it present).
    public func present() async throws {
        try await command("present", until: { $0.hasPrefix("POWERED") }, refusedBy: { $0.hasPrefix("ERROR") || $0 == "PRESENTED already" })
    }

    /// Takes the tag out of the field, if it is in, and returns once pcscd reports the reader empty (it polls every
    /// 400 ms): the next `present` is a new tap.
    public func remove() async throws {
        try await command("remove", until: { $0.hasPrefix("REMOVED") })
        PrivatePCSCD.waitUntilEmpty(readerName)
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

    /// How the tag answers class `FF` commands (a reader's LED, buzzer and beep): accepted (`9000`) or refused (`6A81`).
    public func set(pseudoAPDUs accepted: Bool) async throws {
        try await command("pseudo \(accepted ? "accept" : "refuse")", until: { $0.hasPrefix("PSEUDO ") })
    }

    /// The class `FF` commands the tag received after the first `skip` lines of its transcript, in hex.
    public func pseudoAPDUs(after skip: Int = 0) -> [String] {
        transcript.dropFirst(skip).compactMap { line in
            guard line.hasPrefix("PSEUDO "), let arrow = line.range(of: " -> ") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 7) ..< arrow.lowerBound])
        }
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
    public var transcript: [String] { process.lines }

    /// The URLs the tag signed, in order, with their counters.
    public var signedReads: [(counter: Int, url: String)] {
        signedReads(after: 0)
    }

    /// The URLs the tag signed after the first `skip` lines of its transcript (a mark taken before a tap).
    public func signedReads(after skip: Int) -> [(counter: Int, url: String)] {
        transcript.dropFirst(skip).compactMap { line in
            guard line.hasPrefix("READ ctr="), let space = line.firstIndex(of: " "),
                  let urlRange = line.range(of: " url=") else { return nil }
            let counterText = line[line.index(space, offsetBy: 5) ..< urlRange.lowerBound]
            return Int(counterText).map { ($0, String(line[urlRange.upperBound...])) }
        }
    }

    /// Waits for a line after the first `skip` lines that satisfies `matches`.
    public func waitForLine(after skip: Int = 0, timeout: Duration = patience,
                            where matches: @Sendable (String) -> Bool) async throws -> String {
        do {
            return try await process.waitForLine(after: skip, timeout: timeout, where: matches)
        } catch {
            throw HarnessError("vtag on \(readerName): \(error)")
        }
    }

    /// Ends the tag (taking it out of the field) and returns once pcscd reports the reader empty,
    /// so that whatever runs next starts with an empty reader.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        try? process.send("quit")
        process.closeInput()
        process.waitForExit(timeout: .seconds(2))
        if transcript.contains("PRESENTED") {
            PrivatePCSCD.waitUntilEmpty(readerName)
        }
    }

    deinit {
        stop()
    }

    private func command(_ line: String, until done: @escaping @Sendable (String) -> Bool,
                         refusedBy refused: @escaping @Sendable (String) -> Bool = { $0.hasPrefix("ERROR") }) async throws {
        let mark = process.lines.count
        do {
            try process.send(line)
        } catch {
            throw HarnessError("vtag on \(readerName): \(error)")
        }
        let answer = try await waitForLine(after: mark) { done($0) || refused($0) }
        if refused(answer) {
            throw HarnessError("vtag on \(readerName) refused '\(line)': \(answer)")
        }
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
