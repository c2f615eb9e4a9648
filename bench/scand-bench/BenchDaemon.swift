import Foundation
import Glibc
import Harness

/// The release daemon under measurement, its socket and journal in a scratch folder under `scratch` (or the journal
/// given): on a disk, each event's fdatasync is a real one; on a tmpfs, it costs nothing.
final class BenchDaemon {
    let socketPath: String
    let startToListening: Duration
    private let process: Process
    private let directory: String

    init(executable: String, api: SandboxAPI, nfc: String, scratch: String = "/tmp", journal: String? = nil) throws {
        directory = try makeScratchDirectory("scand-bench", in: scratch)
        socketPath = directory + "/scand.sock"
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--socket", socketPath, "--journal", journal ?? directory + "/journal", "--nfc", nfc, "--camera", "none",
                             "--api-base", api.baseURL.absoluteString, "--max-clients", "1100", "--log-level", "warning"]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let start = ContinuousClock.now
        try process.run()
        while true {
            if let client = try? LineClient(path: socketPath) {
                client.close()
                break
            }
            guard process.isRunning, ContinuousClock.now - start < .seconds(20) else {
                throw BenchFailure("the daemon did not listen")
            }
            usleep(500)
        }
        startToListening = ContinuousClock.now - start
    }

    var pid: Int32 { process.processIdentifier }

    func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ")[1])
        else { return -1 }
        return kilobytes * 1024
    }

    /// Freezes the daemon while another turn (the floor's, or another daemon's) taps its reader, so that it neither
    /// reads those taps nor runs beside them; pcscd's word of them waits in its socket, and on `resume` it finds the tag
    /// out of the field.
    func pause() {
        kill(pid, SIGSTOP)
    }

    func resume() {
        kill(pid, SIGCONT)
    }

    func stop() {
        resume()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
