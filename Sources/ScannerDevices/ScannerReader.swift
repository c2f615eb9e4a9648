import Glibc
import HandheldScanner
import POSIXSupport
import Synchronization

/// One scanner's thread: opens the device when it is there, reads codes until it goes away, and waits for it to
/// return. The thread blocks only in poll(2), on the device, its folder's inotify and the stop pipe.
final class ScannerReader: Sendable {
    private let spec: ScannerSpec
    private let keymap: Keymap
    private let rescanAfter: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let emit: @Sendable (ScannerEvent, ContinuousClock.Instant) -> Void
    private let wake: WakePipe
    private let stopped = Mutex(false)

    /// How long to wait before opening a device again (a FIFO's next writer, a device udev is still setting up),
    /// and at most how long between looks at a path no inotify watch covers.
    static let retryInterval: Duration = .seconds(1)

    /// `emit` is called on the reader's thread, at once, for every event, with when the reader saw it by `now`
    /// (a code: its terminator's arrival), which also spaces out repeats of a code.
    init(spec: ScannerSpec, keymap: Keymap, rescanAfter: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant,
         emit: @escaping @Sendable (ScannerEvent, ContinuousClock.Instant) -> Void) throws(SystemCallError) {
        self.spec = spec
        self.keymap = keymap
        self.rescanAfter = rescanAfter
        self.now = now
        self.emit = emit
        do throws(Errno) {
            wake = try WakePipe()
        } catch {
            throw SystemCallError("socketpair", errno: error)
        }
    }

    var isStopped: Bool { stopped.withLock { $0 } }

    func stop() {
        stopped.withLock { $0 = true }
        wake.wake()
    }

    /// Hands `event` on, stamped with the time it was seen.
    private func report(_ event: ScannerEvent) {
        emit(event, now())
    }

    /// Runs until stopped, or until a regular file has been played.
    func run() {
        let watch: PathWatch
        do {
            watch = try PathWatch()
        } catch {
            report(.error(detail: "cannot watch for the device: \(error)"))
            return
        }
        var filter = RepeatFilter(rescanAfter: rescanAfter)
        var seen = false
        var lastProblem: String?
        while !isStopped {
            let device: ScannerDevice
            do throws(ScannerDevice.OpenFailure) {
                device = try open()
            } catch {
                switch error {
                case .missing:
                    if !seen { report(.absent(detail: "no such device yet")) }
                    lastProblem = nil
                case .unusable(let problem):
                    if problem != lastProblem { report(.error(detail: problem)) }
                    lastProblem = problem
                }
                seen = true
                waitForPath(watch)
                continue
            }
            seen = true
            lastProblem = nil
            report(.ready(detail: device.detail))
            let removal: String?
            switch spec {
            case .evdev:
                var framing = KeystrokeFraming(keymap: keymap)
                removal = readCodes(from: device, with: &framing, filter: &filter)
            case .serial:
                var framing = LineFraming()
                removal = readCodes(from: device, with: &framing, filter: &filter)
            }
            guard let removal else { return }
            report(.removed(detail: removal))
            if device.kind == .regularFile { return }
            waitForPath(watch)
        }
    }

    private func open() throws(ScannerDevice.OpenFailure) -> ScannerDevice {
        switch spec {
        case .evdev(let path): try ScannerDevice.openInput(path)
        case .serial(let path, let baud): try ScannerDevice.openSerial(path, baud: baud)
        }
    }

    /// Reads until the device goes away (returns why) or the reader is stopped (returns nil).
    private func readCodes(from device: borrowing ScannerDevice, with framing: inout some CodeFraming,
                           filter: inout RepeatFilter) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64 * InputEvent.size)
        // The poll's deadlines are on the system's clock, as poll(2) counts; a code's time is `now`'s.
        var lastRead = ContinuousClock.now
        func pass(_ event: ScannerEvent) {
            let seenAt = now()
            if case .code(let code) = event, !filter.admit(code, at: seenAt) { return }
            emit(event, seenAt)
        }
        while true {
            // A code begun waits for its end at most `gapLimit` after its last key.
            let deadline = framing.isPending ? lastRead + KeystrokeDecoder.gapLimit : nil
            var descriptors = [pollfd(fd: device.descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready: Int
            do throws(Errno) {
                ready = try Poll.wait(&descriptors, until: deadline)
            } catch {
                return isStopped ? nil : "poll failed: \(SystemCallError("poll", errno: error))"
            }
            if isStopped { return nil }
            if ready == 0 {
                if ContinuousClock.now - lastRead > KeystrokeDecoder.gapLimit { framing.silence(pass) }
                continue
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(device.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                lastRead = .now
                buffer.withUnsafeBytes { framing.consume(UnsafeRawBufferPointer(rebasing: $0[0..<count]), pass) }
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            let why = count == 0 ? "end of stream" : "device gone (\(SystemCallError("read")))"
            framing.end(pass)
            return why
        }
    }

    /// Waits for the device's folder to change or `retryInterval`, whichever comes first, or for a stop.
    private func waitForPath(_ watch: borrowing PathWatch) {
        let deadline = ContinuousClock.now + Self.retryInterval
        watch.watchFolder(of: spec.path)
        // A change in the folder (a by-id link made or replaced) ends the wait at once: no polling needed for it.
        while !isStopped, ContinuousClock.now < deadline {
            var descriptors = [pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            guard let ready = try? Poll.wait(&descriptors, until: deadline), ready > 0 else { continue }
            if descriptors[0].revents != 0 {
                watch.drain()
                return
            }
        }
    }
}
