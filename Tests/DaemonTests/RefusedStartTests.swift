import Foundation
import Glibc
import Testing
import TestSupport

/// A second daemon on a socket that a running one serves is refused with one line and exit 1, every time: it
/// crashed (rc 139, in `__pthread_rwlock_unlock`) about once in ten when its exit tore down the TLS library under
/// the API connection its core had begun to open.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RefusedStartTests {
    @Test func aSecondDaemonIsRefusedWithExitOneFiveHundredTimesInARow() throws {
        let daemon = try ScanDaemon(api: nil).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let journal = daemon.directory + "/second-journal"
        // The script: 250 refusals, one exit status a line; each run's message goes to a file of its own, kept only
        // when it is not the refusal. Two run side by side (the machine's two cores).
        let script = #"""
            daemon="$1"; socket="$2"; journal="$3"; folder="$4"; loop="$5"
            for i in $(seq 250); do
                "$daemon" --socket "$socket" --journal "$journal" --nfc none --camera none --station second \
                    2>"$folder/refusal-$loop-$i"
                echo "status $?"
                grep -q 'another daemon is already listening' "$folder/refusal-$loop-$i" && rm "$folder/refusal-$loop-$i"
            done
            """#
        let loops = try ["a", "b"].map { loop in
            try ChildProcess(service: "/bin/sh", arguments: ["-c", script, "sh", builtProduct("sealtrust-scand"),
                                                                     daemon.socketPath, journal, daemon.directory, loop])
        }
        var statuses: [String] = []
        for loop in loops {
            #expect(loop.waitForExit(timeout: .seconds(170)) != nil, "the refusals did not end: \(loop.standardError)")
            statuses += loop.standardOutput.split(separator: "\n").map { $0.replacingOccurrences(of: "status ", with: "") }
        }
        #expect(statuses.count == 500, "\(statuses.count) refusals ran")
        let counted = Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count)
        #expect(counted == ["1": 500], "exit statuses and how often: \(counted)")
        let unexpected = try FileManager.default.contentsOfDirectory(atPath: daemon.directory).filter { $0.hasPrefix("refusal-") }
        #expect(unexpected.isEmpty, "runs whose message was not the refusal: \(unexpected.sorted().prefix(5))")
        #expect(!FileManager.default.fileExists(atPath: journal), "a refused daemon opened a journal")
        let (client, hello) = try daemon.connect()
        client.close()
        #expect(hello["station"]?.string == "test-station", "the running daemon still serves")
    }
}
