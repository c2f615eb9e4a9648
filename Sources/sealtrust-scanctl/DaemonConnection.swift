import Glibc
import JSONCore
import POSIXSupport
import StationWire

/// Why the client gives up with exit status 3: the daemon is unreachable or broke the protocol.
struct DaemonFailure: Error {
    let message: String
}

/// A blocking connection to the daemon's socket that reads whole lines.
final class DaemonConnection {
    private let owned: OwnedDescriptor
    private var buffer: [UInt8] = []
    private var scanned = 0

    init(path: String) throws(DaemonFailure) {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw DaemonFailure(message: "cannot reach the daemon at \(path): the path is too long")
        }
        do {
            owned = OwnedDescriptor(try UnixSocket.make(.stream))
        } catch {
            throw DaemonFailure(message: "cannot create a socket: \(error)")
        }
        do {
            try UnixSocket.connect(owned.rawValue, to: address)
        } catch {
            throw DaemonFailure(message: "cannot reach the daemon at \(path): \(error); \(Self.hint(for: error))")
        }
    }

    private var descriptor: Int32 { owned.rawValue }

    /// What to check next: the socket's group for a refused permission, otherwise whether the service runs.
    private static func hint(for error: Errno) -> String {
        if error.rawValue == EACCES {
            return "the socket is open to root and the sealtrust-scand group only"
        }
        return "is the daemon running? see systemctl status sealtrust-scand"
    }

    func send(_ command: ClientCommand) throws(DaemonFailure) {
        var bytes: [UInt8] = []
        command.json.encoded(into: &bytes)
        bytes.append(0x0A)
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw DaemonFailure(message: "the daemon closed the connection (\(String(cString: strerror(errno))))")
            }
            sent += result
        }
    }

    /// The next line, without its newline; nil when `timeout` (seconds) passes first.
    func readLine(timeout: Double? = nil) throws(DaemonFailure) -> String? {
        let deadline = timeout.map { monotonicSeconds() + $0 }
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeSubrange(0...newline)
                scanned = 0
                return line
            }
            scanned = buffer.count
            if let deadline {
                let remaining = deadline - monotonicSeconds()
                if remaining <= 0 { return nil }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
                if ready == 0 { continue }
                if ready < 0 && errno == EINTR { continue }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                throw DaemonFailure(message: "lost the connection to the daemon: \(String(cString: strerror(errno)))")
            }
            if count == 0 { throw DaemonFailure(message: "the daemon closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// The next message: a JSON object with a string `type`, else the protocol is broken.
    func readMessage(timeout: Double? = nil) throws(DaemonFailure) -> (line: String, message: JSON)? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        guard let message = try? JSON.parse(line), MessageType(of: message) != nil else {
            throw DaemonFailure(message: "the daemon broke the protocol: \(String(line.prefix(200)))")
        }
        return (line, message)
    }

    private func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
