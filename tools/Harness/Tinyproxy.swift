import Foundation
import Glibc

/// Debian's tinyproxy (package tinyproxy-bin), a real HTTP proxy on a free loopback port, run by the test itself with
/// its own configuration, pid file and log in a scratch folder: never the machine's service. It ends when stopped or
/// when this process goes away (a shell beside it waits on the stdin only this process holds).
public final class Tinyproxy: Sendable {
    public let port: Int
    private let directory: ScratchDirectory
    private let child: ChildProcess

    public static let executable = "/usr/bin/tinyproxy"

    /// `connectPorts`: the only ports its `CONNECT` may reach, as a station's proxy would restrict them.
    public init(connectPorts: [Int], startTimeout: Duration = .seconds(10)) throws {
        directory = try ScratchDirectory("sealtrust-tinyproxy")
        port = try Self.unusedLoopbackPort()
        let configuration = directory.path + "/tinyproxy.conf"
        let lines = [
            "Port \(port)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 32", "Allow 127.0.0.1",
            "PidFile \"\(directory.path)/tinyproxy.pid\"", "LogFile \"\(directory.path)/tinyproxy.log\"", "LogLevel Info",
        ] + connectPorts.map { "ConnectPort \($0)" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
        // A background job of a non-interactive shell reads /dev/null: the shell's `cat` alone holds the stdin pipe.
        let script = "\"$0\" -d -c \"$1\" & proxy=$!; cat >/dev/null; kill $proxy; wait $proxy"
        child = try ChildProcess("/bin/sh", ["-c", script, Self.executable, configuration])
        let deadline = ContinuousClock.now + startTimeout
        while !Self.accepts(port) {
            guard ContinuousClock.now < deadline else {
                Self.stop(child)
                throw HarnessError("tinyproxy did not listen on 127.0.0.1:\(port) within \(startTimeout): \(log)")
            }
            usleep(10_000)
        }
    }

    deinit {
        Self.stop(child)
    }

    /// What tinyproxy logged so far.
    public var log: String {
        (try? String(contentsOfFile: directory.path + "/tinyproxy.log", encoding: .utf8)) ?? ""
    }

    /// The request lines it received, such as `CONNECT localhost:8443 HTTP/1.1`, in order.
    public var requests: [String] {
        log.split(separator: "\n").compactMap { line in
            guard let marker = line.range(of: "Request (file descriptor ") else { return nil }
            return line[marker.upperBound...].split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Ends the proxy and waits for it; safe to call more than once.
    public func stop() {
        Self.stop(child)
    }

    private static func stop(_ child: ChildProcess) {
        child.closeInput()
        child.waitForExit(timeout: .seconds(5))
    }

    /// A loopback port nobody listens on now (bound to port 0, then released for tinyproxy to take).
    private static func unusedLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard bound == 0 else { throw HarnessError("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on the loopback `port` now.
    private static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
