import Glibc
import POSIXSupport
import Synchronization

/// What the reader threads tell the main thread, and its order to stop.
final class BenchProgress: Sendable {
    let stop = Atomic<Bool>(false)
    let hellos = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
}

/// A share of the subscribers, read by one thread with poll(2), as a kiosk's or a warehouse's client would.
/// Records, per event seq, how many subscribers got it and when the last one did.
final class SubscriberShare {
    struct Arrival {
        var count = 0
        var lastNanoseconds: UInt64 = 0
        var createdNanoseconds: UInt64 = 0
    }

    private var descriptors: [Int32] = []
    private var buffers: [[UInt8]] = []
    private(set) var arrivals: [UInt64: Arrival] = [:]
    private(set) var hellos = 0

    func connect(count: Int, path: String) -> Bool {
        for _ in 0..<count {
            guard let descriptor = connectedSocket(path: path) else { return false }
            descriptors.append(descriptor)
            buffers.append([])
        }
        return true
    }

    func closeAll() {
        descriptors.forEach { close($0) }
        descriptors.removeAll()
    }

    /// Reads until told to stop, counting hellos and events in `progress`.
    func read(reporting progress: BenchProgress) {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !progress.stop.load(ordering: .relaxed) {
            guard poll(&polled, nfds_t(polled.count), 50) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                let count = recv(polled[index].fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                guard count > 0 else {
                    polled[index].fd = -1
                    continue
                }
                let now = monotonicNanoseconds()
                buffers[index].append(contentsOf: chunk[0..<count])
                var start = 0
                while let newline = buffers[index][start...].firstIndex(of: 0x0A) {
                    let line = buffers[index][start..<newline]
                    start = newline + 1
                    if let seq = number(after: Self.seqKey, in: line), let created = number(after: Self.createdKey, in: line) {
                        arrivals[seq, default: Arrival()].count += 1
                        arrivals[seq]!.lastNanoseconds = max(arrivals[seq]!.lastNanoseconds, now)
                        arrivals[seq]!.createdNanoseconds = created
                        progress.received.add(1, ordering: .relaxed)
                    } else if line.starts(with: Self.helloPrefix) {
                        hellos += 1
                        progress.hellos.add(1, ordering: .relaxed)
                    }
                }
                buffers[index].removeSubrange(0..<start)
            }
        }
    }

    private static let seqKey = Array(#""seq":"#.utf8)
    private static let createdKey = Array(#""created_ns":"#.utf8)
    private static let helloPrefix = Array(#"{"type":"hello""#.utf8)

    /// The whole number right after `key` in `line`: a plain byte scan, so the readers keep up and measure the server, not themselves.
    private func number(after key: [UInt8], in line: ArraySlice<UInt8>) -> UInt64? {
        line.withUnsafeBufferPointer { bytes -> UInt64? in
            key.withUnsafeBufferPointer { key -> UInt64? in
                guard bytes.count > key.count else { return nil }
                var start = 0
                while start + key.count < bytes.count {
                    if bytes[start] == key[0] && memcmp(bytes.baseAddress! + start, key.baseAddress!, key.count) == 0 {
                        var index = start + key.count
                        var value: UInt64 = 0
                        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                            value = value * 10 + UInt64(bytes[index] - 0x30)
                            index += 1
                        }
                        return index == start + key.count ? nil : value
                    }
                    start += 1
                }
                return nil
            }
        }
    }
}

func connectedSocket(path: String) -> Int32? {
    guard let address = try? UnixSocketAddress(path: path) else { return nil }
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else {
        close(descriptor)
        return nil
    }
    return descriptor
}
