import Glibc
import POSIXSupport

/// Tells the service manager how the daemon is doing, by the sd_notify datagram protocol (no libsystemd needed).
public struct SystemdNotifier: Sendable {
    /// Where messages go, or why NOTIFY_SOCKET names nothing this protocol can reach.
    private let address: Result<UnixSocketAddress, SystemCallError>
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
        address = Result { () throws(SystemCallError) in try UnixSocketAddress.notifySocket(notifySocket) }
        let ownPID = watchdogPID.map { Int32($0) == getpid() } ?? true
        if ownPID, let text = watchdogMicroseconds, let microseconds = UInt64(text), microseconds > 0 {
            // Half the timeout, so one late wake-up of a busy loop does not count as a wedge; never zero (WATCHDOG_USEC=1).
            watchdogInterval = .microseconds(Int64(clamping: max(microseconds / 2, 1)))
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends one or more newline-separated assignments, such as "READY=1" or "STATUS=2 readers".
    @discardableResult
    public func send(_ state: String) -> Result<Void, SystemCallError> {
        let destination: UnixSocketAddress
        switch address {
        case .success(let resolved): destination = resolved
        case .failure(let error): return .failure(error)
        }
        let socket: OwnedDescriptor
        do {
            socket = OwnedDescriptor(try UnixSocket.make(.datagram))
        } catch {
            return .failure(SystemCallError("socket", errno: error))
        }
        let bytes = Array(state.utf8)
        let descriptor = socket.rawValue
        do throws(Errno) {
            try bytes.withUnsafeBufferPointer { buffer throws(Errno) in
                try UnixSocket.send(descriptor, UnsafeRawBufferPointer(buffer), to: destination)
            }
        } catch {
            return .failure(SystemCallError("sendto NOTIFY_SOCKET", errno: error))
        }
        return .success(())
    }
}

func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
