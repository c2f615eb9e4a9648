import Glibc
import POSIXSupport

/// The listening sockets systemd passes to a socket-activated service, from descriptor 3 on.
public enum SocketActivation {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START).
    public static let firstDescriptor: Int32 = 3

    /// The passed descriptors, or none when they were not meant for this process or could not be taken.
    public static func listeningDescriptors() -> [Int32] {
        (try? takeDescriptors().get()) ?? []
    }

    /// Takes the passed descriptors: marks them close-on-exec and clears the variables, so no child believes they are its own.
    public static func takeDescriptors() -> Result<[Int32], SystemCallError> {
        let pid = environmentValue("LISTEN_PID")
        let count = environmentValue("LISTEN_FDS")
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        guard let pid, Int32(pid) == getpid() else { return .success([]) }
        guard let count, let number = Int32(count), number >= 0, number <= Int32.max - firstDescriptor else {
            return .failure(SystemCallError("LISTEN_FDS \(count ?? "")", errno: Errno(EINVAL)))
        }
        // One at a time: a count of two billion stops at the first descriptor not open, without an array that large.
        var descriptors: [Int32] = []
        for descriptor in firstDescriptor..<(firstDescriptor + number) {
            do {
                try FileDescriptor.setCloseOnExec(descriptor)
            } catch {
                return .failure(SystemCallError("fcntl \(descriptor)", errno: error))
            }
            descriptors.append(descriptor)
        }
        return .success(descriptors)
    }
}
