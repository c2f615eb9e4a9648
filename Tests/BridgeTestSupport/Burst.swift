import Foundation
import Synchronization

/// Stations scanning at once, each on a thread of its own: `scanForeignCodes` blocks on its socket, and on Swift's
/// cooperative pool (two threads on a 2-core machine) blocked bursts and test bodies that wait could take every thread,
/// so that two suites running side by side waited on each other until their timeouts.
public final class Burst: Sendable {
    private let group = DispatchGroup()
    private let state = Failure()

    private final class Failure: Sendable {
        let first = Mutex<(any Error)?>(nil)
    }

    public init(_ stations: [StationDaemon], codes: Int, tag: String) {
        for daemon in stations {
            group.enter()
            Thread { [group, state] in
                defer { group.leave() }
                do {
                    try daemon.scanForeignCodes(codes, tag: tag)
                } catch {
                    state.first.withLock { $0 = $0 ?? error }
                }
            }.start()
        }
    }

    /// Waits until every station has its verdicts; rethrows the first failure.
    public func wait() throws {
        group.wait()
        if let error = state.first.withLock({ $0 }) { throw error }
    }
}
