import Glibc

/// A dedicated OS thread for one blocking C call loop (poll, SCardGetStatusChange, V4L2 reads, zbar).
///
/// Everything else runs as structured concurrency; only code that must block a thread starts one of these.
/// The thread inherits the creator's signal mask, so signals the daemon blocks stay blocked here too.
public enum OSThread {
    /// Starts `body` on a new detached thread named `name` (at most 15 bytes show in `ps -L`).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let start = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            OSThread.setCurrentName(start.name)
            start.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            fatalError("pthread_create: \(Errno(result))")
        }
        pthread_detach(thread)
    }

    /// Names the calling thread through /proc, which every thread may write for itself.
    public static func setCurrentName(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        try? FileDescriptor.writeAll(descriptor, name.utf8.prefix(15))
    }
}

private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
