#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager how the daemon is doing, by the sd_notify datagram protocol (no libsystemd needed).
public struct SystemdNotifier: Sendable {
    /// Where messages go, or why NOTIFY_SOCKET names nothing this protocol can reach.
    private let address: Result<NotifySocketAddress, SystemdError>
    public let watchdogInterval: Duration?

    /// The notifier systemd set up for this process, or nil when the process was not started by it.
    public static func fromEnvironment() -> SystemdNotifier? {
        guard let socket = environmentValue("NOTIFY_SOCKET"), !socket.isEmpty else { return nil }
        return SystemdNotifier(
            notifySocket: socket,
            watchdogMicroseconds: environmentValue("WATCHDOG_USEC"),
            watchdogPID: environmentValue("WATCHDOG_PID")
        )
    }

    /// The watchdog counts only when it is meant for this process: a child that inherited the variables must not feed it.
    public init(notifySocket: String, watchdogMicroseconds: String? = nil, watchdogPID: String? = nil) {
        address = Result { () throws(SystemdError) in try NotifySocketAddress(notifySocket) }
        let ownPID = watchdogPID.map { Int32($0) == getpid() } ?? true
        if ownPID, let text = watchdogMicroseconds, let microseconds = UInt64(text), microseconds > 0 {
            // Half the timeout, so one late wake-up of a busy loop does not count as a wedge.
            watchdogInterval = .microseconds(Int64(clamping: microseconds / 2))
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends one or more newline-separated assignments, such as "READY=1" or "STATUS=2 readers".
    @discardableResult
    public func send(_ state: String) -> Result<Void, SystemdError> {
        let destination: NotifySocketAddress
        switch address {
        case .success(let resolved): destination = resolved
        case .failure(let error): return .failure(error)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.last("socket")) }
        defer { close(descriptor) }
        let bytes = Array(state.utf8)
        let sent = destination.withSocketAddress { address, length in
            bytes.withUnsafeBytes { buffer in
                sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), address, length)
            }
        }
        guard sent >= 0 else { return .failure(.last("sendto NOTIFY_SOCKET")) }
        return .success(())
    }
}

func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
