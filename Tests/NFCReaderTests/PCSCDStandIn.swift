import Foundation
import Glibc
import POSIXSupport

/// A listener on pcscd's socket while pcscd is stopped: each client that tries to reach pcscd connects, and is hung up
/// on at once, as if pcscd were gone. A test counts those attempts instead of waiting a fixed time.
final class PCSCDStandIn {
    private let path: String
    private var descriptor: Int32
    private(set) var connections = 0

    init(socketPath: String) throws {
        path = socketPath
        unlink(socketPath)
        descriptor = try UnixSocket.make(.stream, nonBlocking: true)
        do {
            try UnixSocket.bind(descriptor, to: UnixSocketAddress(path: socketPath))
            try UnixSocket.listen(descriptor, backlog: 16)
        } catch {
            Glibc.close(descriptor)
            unlink(socketPath)
            throw error
        }
    }

    /// Returns once `count` clients have tried to connect since this stand-in began listening.
    func waitForConnections(_ count: Int, within timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while connections < count {
            let client = accept(descriptor, nil, nil)
            if client >= 0 {
                Glibc.close(client)
                connections += 1
                continue
            }
            guard ContinuousClock.now < deadline else {
                throw MonitorTestFailure("\(connections) of \(count) attempts to reach pcscd within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops listening and leaves the socket's path to pcscd.
    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
        unlink(path)
    }

    deinit {
        close()
    }
}
