import Glibc

/// A blocking client of the daemon's socket that reads whole lines.
final class SocketClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw BenchFailure("cannot connect to \(path)")
        }
    }

    deinit {
        close(descriptor)
    }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard result > 0 else { throw BenchFailure("send failed") }
            sent += result
        }
    }

    func readLine() throws -> String {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw BenchFailure("the daemon closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
