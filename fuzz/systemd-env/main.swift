import Glibc
import POSIXSupport
@testable import SystemdSupport

/// What systemd hands a service in its environment, read as SystemdSupport reads it. The input is NUL-separated
/// fields; its first byte says whether LISTEN_PID and WATCHDOG_PID are this process's pid or the input's text.
/// - LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES: the variables are gone afterwards, whatever they held; descriptors are
///   taken only when LISTEN_PID is this process and LISTEN_FDS is a count, and then they are 3, 4, ... in order, each
///   open and close-on-exec, never more than LISTEN_FDS; a count too large for the descriptors open is EBADF, a count
///   that is no count EINVAL; nothing grows with the count (`-malloc_limit_mb` in options).
/// - NOTIFY_SOCKET: an address only from `/path` (1 to 107 bytes) or `@name` (1 to 107 bytes after the @), the
///   same bytes in sun_path; anything else EAFNOSUPPORT, EINVAL or ENAMETOOLONG.
/// - WATCHDOG_USEC: an interval only for this process and a positive count, then half of it, never zero.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    _ = heldOpen
    let mode = data.pointee
    let fields = UnsafeBufferPointer(start: data + 1, count: size - 1).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    func field(_ index: Int) -> String? { index < fields.count ? fields[index] : nil }
    let ownPID = String(getpid())
    let listenPID = mode & 1 == 1 ? ownPID : field(0)
    checkSocketActivation(pid: listenPID, count: field(1), names: field(2), ownPID: ownPID)
    checkNotifySocket(field(3) ?? field(0) ?? "")
    checkWatchdog(microseconds: field(1), pid: mode & 2 == 2 ? ownPID : field(4))
    return 0
}

func checkSocketActivation(pid: String?, count: String?, names: String?, ownPID: String) {
    for (name, value) in [("LISTEN_PID", pid), ("LISTEN_FDS", count), ("LISTEN_FDNAMES", names)] {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    let result = SocketActivation.takeDescriptors()
    check(["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"].allSatisfy { (name: String) in getenv(name) == nil }, "a LISTEN_ variable left")
    let meant = pid.flatMap { Int32($0) } == getpid()
    let number = count.flatMap { Int32($0) }.flatMap { (0...(Int32.max - 3)).contains($0) ? $0 : nil }
    switch result {
    case .success(let descriptors):
        if !meant { check(descriptors.isEmpty, "descriptors taken for pid \(pid ?? "none")"); return }
        check(number.map { Int32(descriptors.count) == $0 } ?? false, "\(descriptors.count) descriptors for LISTEN_FDS \(count ?? "none")")
        for (offset, descriptor) in descriptors.enumerated() {
            check(descriptor == 3 + Int32(offset), "descriptor \(descriptor) at \(offset)")
            check(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(descriptor) not close-on-exec")
        }
    case .failure(let error):
        check(meant, "an error for pid \(pid ?? "none"): \(error)")
        if number == nil {
            check(error.errno == Errno(EINVAL), "LISTEN_FDS \(count ?? "none"): \(error)")
        } else {
            check(error.errno == Errno(EBADF), "LISTEN_FDS \(count ?? "none"): \(error)")
        }
    }
}

func checkNotifySocket(_ value: String) {
    let bytes = Array(value.utf8)
    let capacity = UnixSocketAddress.pathCapacity
    let fits = switch bytes.first {
    case UInt8(ascii: "/"): bytes.count < capacity
    case UInt8(ascii: "@"): bytes.count > 1 && bytes.count <= capacity
    default: false
    }
    do {
        let address = try UnixSocketAddress.notifySocket(value)
        check(fits, "NOTIFY_SOCKET \(value.debugDescription) taken")
        address.withSocketAddress { pointer, length in
            let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
            let path = UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer) + offset, count: Int(length) - offset)
            let expected = bytes.first == UInt8(ascii: "@") ? [0] + bytes.dropFirst() : bytes + [0]
            check(Array(path) == expected, "NOTIFY_SOCKET \(value.debugDescription) as \(Array(path))")
        }
    } catch {
        check(!fits, "NOTIFY_SOCKET \(value.debugDescription) refused: \(error)")
        check([EAFNOSUPPORT, EINVAL, ENAMETOOLONG].map(Errno.init).contains(error.errno), "NOTIFY_SOCKET: \(error)")
    }
}

func checkWatchdog(microseconds: String?, pid: String?) {
    let interval = SystemdNotifier(notifySocket: "@fuzz", watchdogMicroseconds: microseconds, watchdogPID: pid).watchdogInterval
    let meant = pid.map { Int32($0) == getpid() } ?? true
    guard meant, let text = microseconds, let value = UInt64(text), value > 0 else {
        check(interval == nil, "a watchdog from WATCHDOG_USEC \(microseconds ?? "none"), WATCHDOG_PID \(pid ?? "none")")
        return
    }
    guard let interval else { fatalError("no watchdog from WATCHDOG_USEC \(text)") }
    check(interval > .zero, "a watchdog interval of \(interval) from WATCHDOG_USEC \(text)")
    check(interval <= .microseconds(Int64(clamping: value)), "a watchdog interval of \(interval) from WATCHDOG_USEC \(text)")
}

/// Three descriptors open beside the fuzzer's own, so that a small LISTEN_FDS can be taken.
let heldOpen: [Int32] = (0..<3).map { _ in open("/dev/null", O_RDONLY) }
