import Glibc
import Synchronization

/// The server's connections as the bridge sees them: whose they are, and how long each has taken over its request.
///
/// Two things a trickle of bytes could otherwise do (slowloris): hold a connection for ever by sending a header line
/// (or a byte of a body) now and then, each resetting libmicrohttpd's idle timer; and fill every connection, so that
/// the station's own page cannot get one. A request, head and body, must be in and answered within
/// `requestDeadline` of the connection's start, or of the previous answer's end; only an event stream, once it has
/// started, may stay. Connections from elsewhere than the station itself (127.0.0.1, ::1) leave
/// `reservedForStation` places free.
final class ConnectionTable: Sendable {
    private struct Entry {
        let socket: Int32
        let fromStation: Bool
        /// Since when the request at hand has been awaited; nil while an event stream runs.
        var requestSince: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        var fromElsewhere = 0
    }

    static let requestDeadline = Duration.seconds(10)
    static let reservedForStation = 8
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// The accept policy: a connection from elsewhere is taken only while the station's places stay free.
    func admits(_ address: UnsafePointer<sockaddr>?) -> Bool {
        Self.isStation(address) || state.withLock { $0.fromElsewhere < limit - Self.reservedForStation }
    }

    func started(_ connection: OpaquePointer, socket: Int32, address: UnsafePointer<sockaddr>?) {
        let fromStation = Self.isStation(address)
        state.withLock { state in
            state.entries[UInt(bitPattern: connection)] = Entry(socket: socket, fromStation: fromStation, requestSince: .now)
            if !fromStation { state.fromElsewhere += 1 }
        }
    }

    /// An event stream started: it stays as long as its client reads.
    func streamStarted(_ connection: OpaquePointer) {
        state.withLock { $0.entries[UInt(bitPattern: connection)]?.requestSince = nil }
    }

    /// A request was answered: the connection may send another, within the same deadline.
    func requestEnded(_ connection: OpaquePointer) {
        state.withLock { $0.entries[UInt(bitPattern: connection)]?.requestSince = .now }
    }

    /// libmicrohttpd calls this before it closes the socket, so `closeSlowHeads` never touches a reused descriptor.
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: UInt(bitPattern: connection)) else { return }
            if !entry.fromStation { state.fromElsewhere -= 1 }
        }
    }

    /// Shuts down each connection whose request is overdue; libmicrohttpd then reads its end and frees it.
    /// Returns how many.
    @discardableResult
    func closeSlowRequests(now: ContinuousClock.Instant = .now) -> Int {
        state.withLock { state in
            var count = 0
            for entry in state.entries.values {
                guard let since = entry.requestSince, now - since > Self.requestDeadline else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                count += 1
            }
            return count
        }
    }

    /// 127.0.0.1 or ::1 (or ::ffff:127.0.0.1): the station's own screen.
    static func isStation(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard let address else { return false }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) } == 0x7F00_0001
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
            let mappedLoopback: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]
            return bytes == loopback || bytes == mappedLoopback
        default:
            return false
        }
    }
}
