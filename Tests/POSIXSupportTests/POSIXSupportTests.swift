import Glibc
import POSIXSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct POSIXSupportTests {
    @Test func aPathTooLongForSunPathIsRefusedWithItsErrno() {
        #expect(throws: Errno(ENAMETOOLONG)) { try UnixSocketAddress(path: "/" + String(repeating: "x", count: 200)) }
        #expect(throws: Errno(EINVAL)) { try UnixSocketAddress(path: "") }
        #expect(throws: Never.self) { try UnixSocketAddress(path: "/" + String(repeating: "x", count: 106)) }
    }

    @Test func nonBlockingLeavesCloseOnExecAlone() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        try FileDescriptor.setNonBlocking(ends[0])
        #expect(fcntl(ends[0], F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(ends[0], F_GETFD) & FD_CLOEXEC == 0)
        try FileDescriptor.setCloseOnExec(ends[0])
        #expect(fcntl(ends[0], F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func aStreamSocketConnectsThroughItsAddress() throws {
        let path = "/tmp/posix-support-\(getpid()).sock"
        unlink(path)
        defer { unlink(path) }
        let address = try UnixSocketAddress(path: path)
        let server = try UnixSocket.make(.stream)
        defer { close(server) }
        try UnixSocket.bind(server, to: address)
        try UnixSocket.listen(server, backlog: 1)
        let client = try UnixSocket.make(.stream)
        defer { close(client) }
        try UnixSocket.connect(client, to: address)
        let sent = try Array("hi".utf8).withUnsafeBytes { bytes throws(Errno) in try UnixSocket.sendNow(client, bytes) }
        #expect(sent == 2)
        let refused = try UnixSocket.make(.stream)
        defer { close(refused) }
        #expect(throws: Errno(ENOENT)) { try UnixSocket.connect(refused, to: UnixSocketAddress(path: path + ".none")) }
    }

    @Test func durationsBecomeMillisecondsTruncatedOrRoundedUp() {
        #expect(Duration.microseconds(2_500).wholeMilliseconds == 2)
        #expect(Duration.microseconds(2_500).roundedUpMilliseconds == 3)
        #expect(Duration.seconds(2).roundedUpMilliseconds == 2_000)
    }

    @Test func aThreadNamesItselfForPs() async {
        let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            OSThread.start(name: "posix-test") {
                var buffer = [UInt8](repeating: 0, count: 32)
                let descriptor = open("/proc/thread-self/comm", O_RDONLY)
                let count = read(descriptor, &buffer, buffer.count)
                close(descriptor)
                continuation.resume(returning: String(decoding: buffer.prefix(max(0, count)).prefix { $0 != 0x0A }, as: UTF8.self))
            }
        }
        #expect(name == "posix-test")
    }

    /// A call on a scan's path must not pay a thread's creation each time: one after another, works reuse the
    /// threads already parked; works at once get threads of their own.
    @Test func parkedThreadsAreReusedOneAfterAnotherAndAddedForWorkAtOnce() {
        let threads = ParkedThreads(name: "test-parked")
        let seen = Mutex<[pthread_t]>([])
        for _ in 0..<50 {
            let done = ThreadSignal()
            threads.run {
                seen.withLock { $0.append(pthread_self()) }
                done.signal()
            }
            done.wait()
        }
        // A thread created per work would make 50; one that has not parked yet when the next comes makes one more.
        #expect(Set(seen.withLock { $0 }).count <= 5)

        let release = ThreadSignal()
        let started = ThreadSignal()
        let concurrent = Mutex<Set<pthread_t>>([])
        for _ in 0..<3 {
            threads.run {
                concurrent.withLock { _ = $0.insert(pthread_self()) }
                started.signal()
                release.wait()
            }
        }
        for _ in 0..<3 { started.wait() }
        #expect(concurrent.withLock { $0.count } == 3)
        for _ in 0..<3 { release.signal() }
    }

    @Test func aWakeMakesThePipeReadableUntilItIsDrained() throws {
        let pipe = try WakePipe()
        var watched = [pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&watched, 1, 0) == 0)
        pipe.wake()
        pipe.wake()
        #expect(poll(&watched, 1, 0) == 1)
        #expect(watched[0].revents & Int16(POLLIN) != 0)
        pipe.drain()
        watched[0].revents = 0
        #expect(poll(&watched, 1, 0) == 0)
        #expect(fcntl(pipe.readEnd, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func fileCallsWriteReadAtAnOffsetTruncateAndRename() throws {
        let directory = "/tmp/posix-support-files-\(getpid())"
        try FileSystem.makeDirectory(directory, mode: 0o700)
        defer { rmdir(directory) }
        #expect(throws: Errno(EEXIST)) { try FileSystem.makeDirectory(directory, mode: 0o700) }
        let path = directory + "/a"
        let descriptor = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_APPEND, mode: 0o600)
        defer { FileDescriptor.close(descriptor) }
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        try FileDescriptor.writeAll(descriptor, Array("hello\n".utf8))
        try FileDescriptor.synchronizeData(descriptor)
        #expect(try FileDescriptor.read(descriptor, at: 1, upTo: 100) == Array("ello\n".utf8))
        try FileDescriptor.truncate(descriptor, to: 2)
        #expect(try FileDescriptor.status(descriptor).st_size == 2)
        try FileSystem.rename(path, to: path + ".b")
        #expect(!FileSystem.exists(path) && FileSystem.exists(path + ".b"))
        try FileSystem.remove(path + ".b")
        #expect(throws: Errno(ENOENT)) { try FileSystem.remove(path + ".b") }
        #expect(throws: Errno(ENOENT)) { try FileDescriptor.open(path, O_RDONLY) }
    }

    @Test func anOwnedDescriptorClosesWhenItsOwnerEndsUnlessReleased() {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        do {
            let owned = OwnedDescriptor(ends[0])
            #expect(fcntl(owned.rawValue, F_GETFD) >= 0)
        }
        #expect(fcntl(ends[0], F_GETFD) == -1 && errno == EBADF)
        let released = OwnedDescriptor(ends[1]).release()
        #expect(fcntl(released, F_GETFD) >= 0)
        close(released)
    }

    /// A wait with a deadline ends with nothing ready once the deadline has passed, never before it.
    @Test func aPollWaitWithNothingReadyEndsAtItsDeadline() throws {
        let wake = try WakePipe()
        let deadline = ContinuousClock.now + .milliseconds(30)
        var descriptors = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        #expect(try Poll.wait(&descriptors, until: deadline) == 0)
        #expect(ContinuousClock.now >= deadline)
        #expect(try Poll.wait(on: wake.readEnd, for: Int16(POLLIN), until: .now) == 0, "a deadline already past only looks")
    }

    /// A wait with no deadline ends when another thread makes its descriptor ready, and says which it is.
    @Test func aPollWaitEndsWhenAnotherThreadWakesIt() throws {
        let wake = try WakePipe()
        OSThread.start(name: "poll-waker") { wake.wake() }
        var descriptors = [pollfd(fd: -1, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        #expect(try Poll.wait(&descriptors, until: nil) == 1)
        #expect(descriptors[0].revents == 0 && descriptors[1].revents & Int16(POLLIN) != 0)
    }

    /// A long pause that checks every slice returns once it is told to stop, not at its end.
    @Test func aSlicedPauseReturnsOnceStopped() {
        let stopped = Mutex(false)
        OSThread.start(name: "pause-stopper") { stopped.withLock { $0 = true } }
        let start = ContinuousClock.now
        OSThread.pause(for: .seconds(50), checkingEvery: .milliseconds(5)) { stopped.withLock { $0 } }
        #expect(ContinuousClock.now - start < .seconds(50))
    }
}
