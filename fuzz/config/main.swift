import Foundation
import Glibc
import DaemonConfiguration

/// The input is a configuration file. It gives options or one error line, never a trap; every number it
/// sets is within its key's range; the error is one line with no control character in it (it goes to
/// stderr, a terminal or the journal).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let descriptor = open(configPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(descriptor >= 0, "cannot write \(configPath)")
    check(size == 0 || write(descriptor, data, size) == size)
    close(descriptor)
    do {
        guard case .run(let options) = try DaemonCommandLine.parse(arguments: ["--config", configPath], environment: [:], fileExists: { _ in false })
        else { fatalError("a configuration file alone asked for --version or --help") }
        check((0.1...300).contains(options.apiTimeout) && (0...3_600).contains(options.rescanAfter), "a time out of range")
        check((1...65_536).contains(options.maxClients) && (65_536...(1 << 30)).contains(options.clientQueueBytes), "a count out of range")
        check(((1 << 20)...(1 << 40)).contains(options.journalMaxBytes) && (0.001...36_500).contains(options.journalMaxAgeDays))
        check(options.latitude.map { (-90...90).contains($0) } ?? true && options.longitude.map { (-180...180).contains($0) } ?? true)
        let scheme = options.apiBase.scheme
        check(scheme == "https" || scheme == "http", "api-base scheme \(scheme ?? "none")")
    } catch {
        check(!error.message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
              "a control character in the error line: \(error.message.debugDescription)")
    }
    return 0
}

let configPath: String = {
    let path = "/dev/shm/fuzz-config-\(getpid()).conf"
    atexit { unlink(configPath) }
    return path
}()
