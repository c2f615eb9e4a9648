import Glibc
import POSIXSupport

/// What a device node is to V4L2, asked with a plain VIDIOC_QUERYCAP (not through libv4l2, which writes its
/// failures to stderr unprefixed): the daemon opens only capture devices and names anything else once.
enum VideoCapability: Equatable {
    case capture
    /// No such file (yet): a camera that may still be plugged in.
    case missing
    /// The path exists but cannot serve as a camera; the reason in words.
    case unusable(String)

    /// _IOR('V', 0, struct v4l2_capability): the struct is 104 bytes; `capabilities` sits at byte 84 and
    /// `device_caps` at byte 88 (linux/videodev2.h, a stable ABI).
    private static let queryCapabilities: UInt = 0x8068_5600
    private static let captureFlag: UInt32 = 0x0000_0001
    private static let deviceCapsFlag: UInt32 = 0x8000_0000

    static func of(_ path: String) -> VideoCapability {
        let file: OwnedDescriptor
        do throws(Errno) {
            file = OwnedDescriptor(try FileDescriptor.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC))
        } catch {
            if error.rawValue == ENOENT { return .missing }
            return .unusable("cannot open it: \(error)")
        }
        let descriptor = file.rawValue
        var answer = [UInt8](repeating: 0, count: 104)
        let result = answer.withUnsafeMutableBytes { ioctl(descriptor, queryCapabilities, $0.baseAddress!) }
        guard result == 0 else { return .unusable("not a V4L2 device") }
        func word(at offset: Int) -> UInt32 {
            answer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        }
        let all = word(at: 84)
        let device = all & deviceCapsFlag != 0 ? word(at: 88) : all
        return device & captureFlag != 0 ? .capture : .unusable("a V4L2 device that does not capture video")
    }
}
