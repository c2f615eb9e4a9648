import Glibc
import Foundation
import POSIXSupport

/// A listening Unix stream socket, as a socket unit would create it, to hand to a service as fd 3.
public final class ActivationSocket: Sendable {
    public let path: String
    public let descriptor: Int32
    private let directory: String

    public init() throws {
        directory = try makeScratchDirectory("sealtrust-systemd")
        path = directory + "/scand.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError.failed("socket") }
        guard try UnixSocketAddress(path: path).withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw HarnessError.failed("bind \(path)")
        }
        guard listen(descriptor, 16) == 0 else { throw HarnessError.failed("listen") }
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Connects as a client would and returns the first line the service sends, or nil when none comes in time.
    public func connectAndReadLine(timeout: Duration) throws -> String? {
        try Harness.connectAndReadLine(path: path, timeout: timeout)
    }
}

/// Connects to the Unix stream socket at `path` as a client would and returns the first line it is sent,
/// or nil when none comes in time.
public func connectAndReadLine(path: String, timeout: Duration) throws -> String? {
    let client = try LineClient(path: path)
    guard case .line(let line) = client.receive(timeout: timeout) else { return nil }
    return line
}
