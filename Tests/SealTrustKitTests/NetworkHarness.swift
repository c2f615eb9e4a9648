import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SealTrustKit
import TestSupport
import Testing

/// Starts a netlab part from a thread with no signal blocked, for the reason `startSandbox` gives.
func startNetLab(_ arguments: [String]) async throws -> NetLabPart {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            var nothingBlocked = sigset_t()
            sigemptyset(&nothingBlocked)
            pthread_sigmask(SIG_SETMASK, &nothingBlocked, nil)
            continuation.resume(with: Result { try NetLabPart.start(arguments) })
        }
    }
}

/// A temporary folder for one test's certificates and records, removed at the end.
func withScratchFolder(_ body: (URL) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sealtrust-net-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try await body(folder)
}

/// The lines a netlab part wrote to its record file so far.
func recordedLines(_ file: URL) -> [String] {
    guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init)
}

/// Waits until the record file holds a line for which `matches` is true, or fails the test after `limit`.
func waitForRecord(_ file: URL, limit: Duration = .seconds(10), _ matches: (String) -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !recordedLines(file).contains(where: matches) {
        guard ContinuousClock.now < deadline else {
            Issue.record("no matching line in \(file.lastPathComponent) within \(limit): \(recordedLines(file))")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A client of a server at `port` on loopback, with the station's network settings; `caFile`'s certificates are read now.
func networkClient(scheme: String = "http", host: String = "127.0.0.1", port: Int, timeout: TimeInterval = 5,
                   proxy: URL? = nil, caFile: URL? = nil, keepAlive: TimeInterval = 20, readyConnections: Int = 1) -> SealTrustClient {
    SealTrustClient(configuration: SealTrustConfiguration(
        baseURL: URL(string: "\(scheme)://\(host):\(port)")!, timeout: timeout, clientIdentifier: "sealtrust-kit-tests/1",
        proxy: proxy, caBundle: caFile.map { CABundle(path: $0.path, pem: Array((try? Data(contentsOf: $0)) ?? Data())) },
        keepAlive: keepAlive, readyConnections: readyConnections))
}

/// A chip URL in the form the client sends (the misbehaving server never checks it).
let sampleChipURL = "https://sealtrust.io/c?picc_data=ef963ff7828658a599f3041510671e88&cmac=94eed9ee65337086"

/// This process's resident memory, from /proc.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}
