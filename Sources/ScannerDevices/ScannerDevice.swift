import CLinuxInput
import Glibc
import HandheldScanner
import POSIXSupport

/// An open scanner: an evdev node (grabbed), a file or FIFO of `input_event` records, or a serial port in raw mode.
/// Closing it (the end of its scope) gives the grab back.
struct ScannerDevice: ~Copyable {
    enum Kind: Equatable {
        /// An evdev node, grabbed for this descriptor alone.
        case inputDevice
        /// A regular file: played once.
        case regularFile
        /// A FIFO: live, opened again for its next writer.
        case fifo
        /// A terminal (a CDC-ACM port, a pseudo-terminal) in raw mode.
        case terminal
    }

    enum OpenFailure: Error {
        /// No such path (yet).
        case missing
        case unusable(String)
    }

    private let owned: OwnedDescriptor
    let kind: Kind
    /// For the `ready` event: the device's name, or what it is.
    let detail: String

    private init(_ owned: consuming OwnedDescriptor, kind: Kind, detail: String) {
        self.owned = owned
        self.kind = kind
        self.detail = detail
    }

    var descriptor: Int32 { owned.rawValue }

    /// Opens a keyboard-wedge scanner's node and grabs it so its keys reach nothing else; a file or FIFO is read as is.
    static func openInput(_ path: String) throws(OpenFailure) -> ScannerDevice {
        let owned = try openDescriptor(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let descriptor = owned.rawValue
        switch fileType(descriptor) {
        case S_IFCHR:
            guard clinuxinput_grab(descriptor, 1) == 0 else {
                let failure = SystemCallError("EVIOCGRAB")
                throw .unusable(failure.errno == Errno(EBUSY) ? "grabbed by another program" : "cannot grab: \(failure)")
            }
            var name = [CChar](repeating: 0, count: 256)
            let length = clinuxinput_name(descriptor, &name, UInt32(name.count))
            let shown = length > 0 ? printable(String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) : "unnamed"
            return ScannerDevice(owned, kind: .inputDevice, detail: "\(shown), grabbed")
        case S_IFREG:
            return ScannerDevice(owned, kind: .regularFile, detail: "input_event records from a file")
        case S_IFIFO:
            return ScannerDevice(owned, kind: .fifo, detail: "input_event records from a FIFO")
        default:
            throw .unusable("not an input device, a file or a FIFO")
        }
    }

    /// Opens a serial scanner's port, locked for this reader alone, in raw mode at `baud` (CDC-ACM devices ignore the rate).
    static func openSerial(_ path: String, baud: Int) throws(OpenFailure) -> ScannerDevice {
        let owned = try openDescriptor(path, flags: O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        let descriptor = owned.rawValue
        guard isatty(descriptor) == 1 else {
            throw .unusable("not a terminal")
        }
        // One reader at a time, as an evdev node is grabbed: two programs reading one port each take some of its
        // lines, and neither sees them all. Advisory (flock, held until close), so it binds every sealtrust-scand and
        // any program that locks a port the same way; it holds for root too, unlike TIOCEXCL.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = SystemCallError("flock")
            throw .unusable(failure.errno == Errno(EWOULDBLOCK) ? "in use by another program" : "cannot lock: \(failure)")
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let failure = SystemCallError("tcgetattr")
            throw .unusable("\(failure)")
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        _ = cfsetspeed(&settings, speed(baud))
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            let failure = SystemCallError("tcsetattr")
            throw .unusable("cannot set raw mode: \(failure)")
        }
        return ScannerDevice(owned, kind: .terminal, detail: "raw mode, \(baud) baud")
    }

    /// Gives the grab back; the descriptor closes after.
    deinit {
        if kind == .inputDevice { _ = clinuxinput_grab(descriptor, 0) }
    }

    private static func openDescriptor(_ path: String, flags: Int32) throws(OpenFailure) -> OwnedDescriptor {
        let descriptor = open(path, flags)
        guard descriptor >= 0 else {
            let failure = SystemCallError("open")
            throw failure.errno == Errno(ENOENT) || failure.errno == Errno(ENOTDIR) ? .missing : .unusable("cannot open: \(failure)")
        }
        return OwnedDescriptor(descriptor)
    }

    private static func fileType(_ descriptor: Int32) -> mode_t {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return status.st_mode & S_IFMT
    }

    /// `baud` is one of `ScannerSpec.baudRates`.
    private static func speed(_ baud: Int) -> speed_t {
        let speeds: [Int: Int32] = [1200: B1200, 2400: B2400, 4800: B4800, 9600: B9600, 19200: B19200, 38400: B38400,
                                    57600: B57600, 115200: B115200, 230400: B230400, 460800: B460800, 921600: B921600]
        return speed_t(speeds[baud] ?? B9600)
    }
}
