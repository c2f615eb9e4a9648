import Glibc
import Foundation
import POSIXSupport

/// SCM_CREDENTIALS from <bits/socket.h>, which Glibc's module map hides behind _GNU_SOURCE.
private let scmCredentials: Int32 = 2

/// One datagram a supervised process sent to NOTIFY_SOCKET, with the sender's pid as the kernel vouches for it.
public struct NotifyMessage: Sendable {
    public let text: String
    public let senderPID: pid_t
    public let receivedAt: ContinuousClock.Instant

    /// The assignments of the message, such as ["READY": "1", "STATUS": "..."].
    public var assignments: [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }
}

/// The service manager's end of the notify protocol: a bound datagram socket that records who sent what and when.
public final class NotifyListener: Sendable {
    public enum Form: Sendable { case path, abstract }

    /// The value to give NOTIFY_SOCKET.
    public let address: String
    private let descriptor: Int32
    private let directory: String?

    public init(form: Form) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError.failed("socket") }
        let socketAddress: UnixSocketAddress
        switch form {
        case .path:
            let directory = try makeScratchDirectory("sealtrust-systemd")
            self.directory = directory
            address = directory + "/notify.sock"
            socketAddress = try UnixSocketAddress(path: address)
        case .abstract:
            directory = nil
            address = "@sealtrust-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            socketAddress = try UnixSocketAddress(abstractName: String(address.dropFirst()))
        }
        var passCredentials: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_PASSCRED, &passCredentials, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw HarnessError.failed("setsockopt SO_PASSCRED")
        }
        guard socketAddress.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw HarnessError.failed("bind \(address)")
        }
    }

    deinit {
        close(descriptor)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The next datagram, or nil when none comes within `timeout`.
    public func receive(timeout: Duration) -> NotifyMessage? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        var payload = [UInt8](repeating: 0, count: 4096)
        // cmsghdr (16 bytes on 64-bit Linux) followed by struct ucred (12 bytes), padded to 8.
        let controlLength = 32
        var control = [UInt8](repeating: 0, count: controlLength)
        let received = payload.withUnsafeMutableBytes { payloadBuffer in
            control.withUnsafeMutableBytes { controlBuffer in
                var vector = iovec(iov_base: payloadBuffer.baseAddress, iov_len: payloadBuffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBuffer.baseAddress
                    header.msg_controllen = controlBuffer.count
                    return recvmsg(descriptor, &header, 0)
                }
            }
        }
        guard received >= 0 else { return nil }
        let level = control.withUnsafeBytes { $0.load(fromByteOffset: 8, as: Int32.self) }
        let type = control.withUnsafeBytes { $0.load(fromByteOffset: 12, as: Int32.self) }
        let senderPID = level == SOL_SOCKET && type == scmCredentials
            ? control.withUnsafeBytes { $0.load(fromByteOffset: 16, as: pid_t.self) }
            : -1
        return NotifyMessage(
            text: String(decoding: payload[..<received], as: UTF8.self),
            senderPID: senderPID,
            receivedAt: .now
        )
    }

    /// Every datagram until one carries `name` (included), or nil when `timeout` passes first.
    public func receive(until name: String, timeout: Duration) -> [NotifyMessage]? {
        let deadline = ContinuousClock.now + timeout
        var messages: [NotifyMessage] = []
        while case let left = deadline - .now, left > .zero, let message = receive(timeout: left) {
            messages.append(message)
            if message.assignments[name] != nil { return messages }
        }
        return nil
    }
}
