#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A system call that failed while a test set up the service manager's side.
public struct TestSystemError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    static func last(_ operation: String) -> TestSystemError {
        TestSystemError(operation: operation, errno: Glibc.errno)
    }

    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}

/// Calls `body` with a sockaddr_un holding `pathBytes` (terminator included for a path, leading NUL for an abstract name).
func withUnixAddress<Result>(_ pathBytes: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}

func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/sealtrust-systemd-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw TestSystemError.last("mkdtemp") }
    return String(cString: made)
}

/// A listening Unix stream socket, as a socket unit would create it, to hand to a service as fd 3.
public final class ListeningSocket: Sendable {
    public let path: String
    public let descriptor: Int32
    private let directory: String

    public init() throws {
        directory = try makeTemporaryDirectory()
        path = directory + "/scand.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestSystemError.last("socket") }
        guard withUnixAddress(Array(path.utf8) + [0], { bind(descriptor, $0, $1) }) == 0 else {
            throw TestSystemError.last("bind \(path)")
        }
        guard listen(descriptor, 16) == 0 else { throw TestSystemError.last("listen") }
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Connects as a client would and returns the first line the service sends, or nil when none comes in time.
    public func connectAndReadLine(timeout: Duration) throws -> String? {
        try SystemdTestSupport.connectAndReadLine(path: path, timeout: timeout)
    }
}

/// Connects to the Unix stream socket at `path` as a client would and returns the first line it is sent,
/// or nil when none comes in time.
public func connectAndReadLine(path: String, timeout: Duration) throws -> String? {
    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard client >= 0 else { throw TestSystemError.last("socket") }
    defer { close(client) }
    guard withUnixAddress(Array(path.utf8) + [0], { connect(client, $0, $1) }) == 0 else {
        throw TestSystemError.last("connect \(path)")
    }
    let deadline = ContinuousClock.now + timeout
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while ContinuousClock.now < deadline {
        var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) >= 0 else { throw TestSystemError.last("poll") }
        guard poller.revents != 0 else { continue }
        guard read(client, &byte, 1) == 1 else { return nil }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
    return nil
}
