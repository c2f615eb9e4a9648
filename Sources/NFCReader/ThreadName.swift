import Glibc

/// Names the calling thread, as `ps -L` and /proc show it. Foundation's `Thread.current.name` may name it
/// late, or not at all, when the new thread runs before its creator has recorded its handle.
func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
