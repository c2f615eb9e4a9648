import Foundation
import Glibc
import JSONCore
import POSIXSupport
import ScanJournal
import Synchronization
import Testing
import TestSupport
import VerdictSocket

@Suite(.serialized, .timeLimit(.minutes(1))) struct ServerTests {
    @Test func aClientThatNeverReadsIsDroppedWhileOthersReceiveEverything() throws {
        let daemon = try FakeDaemon(configure: { $0.clientQueueBytes = 1_048_576 })
        defer { daemon.tearDown() }
        try daemon.start()
        let stalled = try TestClient(path: daemon.socketPath)
        let count = 3_000
        let received = Mutex<[UInt64]>([])
        let readerDone = DispatchSemaphore(value: 0)
        // The reader stays connected until the end, so that the count below tells the stalled client was dropped.
        let readerMayLeave = DispatchSemaphore(value: 0)
        defer { readerMayLeave.signal() }
        let path = daemon.socketPath
        Thread {
            guard let reader = try? TestClient(path: path), (try? reader.hello()) != nil else {
                readerDone.signal()
                return
            }
            while let line = try? reader.readLine(), let seq = (try? JSON.parse(line))?["seq"]?.integerValue {
                let total = received.withLock { list in
                    list.append(UInt64(seq))
                    return list.count
                }
                if total == count { break }
            }
            readerDone.signal()
            withExtendedLifetime(reader) { _ = readerMayLeave.wait(timeout: .now() + 30) }
        }.start()
        #expect(waitUntil { daemon.server.clientCount == 2 })
        let payload = JSON.string(String(repeating: "v", count: 1_000))
        var published: [UInt64] = []
        for index in 0..<count {
            published.append(try daemon.emit("verdict", [("padding", payload)]).seq)
            if index % 50 == 0 {
                // The reader is a slow debug build: keep it within 500 events (500 KB) of the publisher.
                #expect(waitUntil { received.withLock { $0.count } >= index - 500 })
            }
        }
        #expect(readerDone.wait(timeout: .now() + 20) == .success)
        let everythingInOrder = received.withLock { $0 } == published
        #expect(everythingInOrder)
        #expect(waitUntil { daemon.server.clientCount == 1 })
        #expect(stalled.isClosedByServer(within: 10))
    }

    @Test func anEventLargerThanAClientsQueueStillReachesEveryReaderLiveAndOnReplay() throws {
        let daemon = try FakeDaemon(configure: { $0.clientQueueBytes = 65_536 })
        defer { daemon.tearDown() }
        try daemon.start()
        let live = try TestClient(path: daemon.socketPath)
        _ = try live.hello()
        #expect(waitUntil { daemon.server.clientCount == 1 })
        let big = try daemon.emit("verdict", [("padding", .string(String(repeating: "\u{1}", count: 100_000)))])
        let after = try daemon.emit("verdict", [("outcome", "authentic")])
        #expect(try live.readJSON(timeout: 10)["seq"]?.integerValue == Int64(big.seq))
        #expect(try live.readJSON(timeout: 10)["seq"]?.integerValue == Int64(after.seq))

        let replaying = try TestClient(path: daemon.socketPath)
        _ = try replaying.hello()
        replaying.send(#"{"cmd":"replay","since":0,"id":"r"}"# + "\n")
        #expect(try replaying.readJSON(timeout: 10)["seq"]?.integerValue == Int64(big.seq))
        #expect(try replaying.readJSON(timeout: 10)["seq"]?.integerValue == Int64(after.seq))
        #expect(daemon.server.clientCount == 2, "nobody was disconnected")
        #expect(!live.isClosedByServer(within: 0.2) && !replaying.isClosedByServer(within: 0.2))
    }

    @Test func aThousandConnectAndCloseCyclesLeaveNoConnectionOpenAtTheServer() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let warmup = try TestClient(path: daemon.socketPath)
        try warmup.hello()
        #expect(waitUntil { daemon.server.clientCount == 1 })
        let before = serverSocketCount(path: daemon.socketPath)
        #expect(before == 2, "the listener and the warm-up client's connection")
        for cycle in 0..<1_000 {
            let client = try TestClient(path: daemon.socketPath)
            switch cycle % 4 {
            case 0: try client.hello()
            case 1: client.send(#"{"cmd":"status"}"# + "\n")
            case 2: client.send("garbage without newline")
            default: break
            }
        }
        #expect(waitUntil(timeout: 10) { daemon.server.clientCount == 1 })
        #expect(waitUntil { serverSocketCount(path: daemon.socketPath) == before })
        try daemon.emit("verdict")
        #expect(try JSON.parse(try #require(try warmup.readLine()))["type"] == "verdict")
    }

    @Test func replayWhilePublishingHasNoGapAndNoDoubleAtTheSeam() throws {
        let daemon = try FakeDaemon(segmentBytes: 200_000)
        defer { daemon.tearDown() }
        let payload = JSON.string(String(repeating: "r", count: 400))
        for _ in 0..<3_000 { _ = try daemon.journal.append(type: "scan", fields: [("padding", payload)]) }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()

        let publisherDone = DispatchSemaphore(value: 0)
        let journal = daemon.journal
        let server = daemon.server
        Thread {
            for index in 0..<1_500 {
                if let event = try? journal.append(type: index % 2 == 0 ? "scan" : "verdict", fields: [("padding", payload)]) {
                    server.publish(event)
                }
            }
            publisherDone.signal()
        }.start()
        client.send(#"{"cmd":"replay","since":100,"id":"r"}"# + "\n")

        var seqs: [UInt64] = []
        var seams: [JSON] = []
        while seqs.last != 4_500 || seams.isEmpty {
            let message = try client.readJSON(timeout: 10)
            if message["type"] == "ack" {
                seams.append(message)
                continue
            }
            #expect(message["type"] == "scan" || message["type"] == "verdict")
            seqs.append(UInt64(try #require(message["seq"]?.integerValue)))
        }
        #expect(seams.count == 1 && seams.first?["id"] == "r" && seams.first?["replayed"]?.integerValue ?? 0 > 0,
                "one ack marks the end of the replay: \(seams)")
        #expect(publisherDone.wait(timeout: .now() + 10) == .success)
        let replayStart = try #require(seqs.firstIndex(of: 101))
        let livePrefix = seqs[..<replayStart]
        #expect(livePrefix.allSatisfy { $0 > 3_000 })
        let contiguous = Array(seqs[replayStart...]) == Array(101...4_500)
        #expect(contiguous)
        #expect(client.staysSilent(for: 0.2))
    }

    @Test func replayFromTheLastSeqOrAboveReplaysNothingAndContinuesLive() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        for _ in 0..<5 { try daemon.emit("scan") }
        try daemon.start()
        for since in [5, 900] {
            let client = try TestClient(path: daemon.socketPath)
            try client.hello()
            client.send("{\"cmd\":\"replay\",\"since\":\(since)}\n")
            let seam = try client.readJSON()
            #expect(seam["type"] == "ack" && seam["replayed"] == 0, "the end of an empty replay is marked too")
            #expect(client.staysSilent(for: 0.2))
            let live = try daemon.emit("verdict")
            #expect(try client.readLine() == live.line)
        }
    }

    @Test func replayedEventsIgnoreWatchButLiveOnesAfterwardFollowIt() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        let first = try daemon.journal.append(type: "source", fields: [])
        let second = try daemon.journal.append(type: "scan", fields: [])
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()
        client.send(#"{"cmd":"watch","events":["verdict"]}"# + "\n")
        _ = try client.readLine()
        client.send(#"{"cmd":"replay","since":0}"# + "\n")
        #expect(try client.readLine() == first.line)
        #expect(try client.readLine() == second.line)
        #expect(try client.readJSON()["replayed"] == 2)
        client.send(#"{"cmd":"status","id":"caught-up"}"# + "\n")
        #expect(try client.readJSON()["id"] == "caught-up")
        try daemon.emit("scan")
        let verdict = try daemon.emit("verdict")
        #expect(try client.readLine() == verdict.line)
    }

    @Test func replayOfEventsRetentionRemovedIsNotAvailable() throws {
        let daemon = try FakeDaemon(journalMaxBytes: 4_096, segmentBytes: 1_024)
        defer { daemon.tearDown() }
        for _ in 0..<200 { _ = try daemon.journal.append(type: "scan", fields: [("raw", "0123456789abcdef")]) }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()
        client.send(#"{"cmd":"replay","since":0,"id":"old"}"# + "\n")
        let error = try client.readJSON()
        #expect(error["type"] == "error")
        #expect(error["code"] == "not_available")
        #expect(error["id"] == "old")
        let oldest = daemon.journal.oldestAvailableSeq
        client.send("{\"cmd\":\"replay\",\"since\":\(oldest - 1)}\n")
        #expect(try client.readJSON()["seq"] == .int(Int64(oldest)))
    }

    @Test func overTheClientLimitANewConnectionIsToldAndClosed() throws {
        let daemon = try FakeDaemon(configure: { $0.maxClients = 2 })
        defer { daemon.tearDown() }
        try daemon.start()
        let first = try TestClient(path: daemon.socketPath)
        var second: TestClient? = try TestClient(path: daemon.socketPath)
        try first.hello()
        try second?.hello()
        let third = try TestClient(path: daemon.socketPath)
        let refusal = try third.readJSON()
        #expect(refusal["type"] == "error")
        #expect(refusal["code"] == "not_available")
        #expect(refusal["detail"] == "too many clients")
        #expect(third.isClosedByServer())
        second = nil
        #expect(waitUntil { daemon.server.clientCount == 1 })
        let fourth = try TestClient(path: daemon.socketPath)
        #expect(try fourth.hello()["type"] == "hello")
        #expect(second == nil)
    }

    @Test func theSocketFileIsMode0660AndRemovedOnStop() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o660)
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()
        daemon.server.stop()
        #expect(client.isClosedByServer())
        #expect(access(daemon.socketPath, F_OK) != 0)
        #expect(throws: (any Error).self) { try TestClient(path: daemon.socketPath) }
    }

    /// A chmod by path after bind leaves a window with the umask's mode, and follows a symlink swapped in meanwhile;
    /// inotify sees any such change of mode (IN_ATTRIB), so none may come after the file appears.
    @Test func theSocketFileIsBorn0660AndItsModeIsNeverChangedByPath() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, daemon.directory, UInt32(IN_CREATE | IN_ATTRIB)) >= 0)
        try daemon.start()
        var changes: [(mask: UInt32, name: String)] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(watch, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameBytes = raw[(offset + MemoryLayout<inotify_event>.size)...].prefix(Int(event.len)).prefix { $0 != 0 }
                    changes.append((event.mask, String(decoding: nameBytes, as: UTF8.self)))
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
            }
        }
        let socketName = (daemon.socketPath as NSString).lastPathComponent
        #expect(changes.contains { $0.name == socketName && $0.mask & UInt32(IN_CREATE) != 0 })
        #expect(!changes.contains { $0.name == socketName && $0.mask & UInt32(IN_ATTRIB) != 0 })
        var info = stat()
        #expect(lstat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
    }

    @Test func everythingPublishedBeforeStopReachesAReadingClientBeforeItsEndOfStream() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let stalled = try TestClient(path: daemon.socketPath)
        try stalled.hello()
        let received = Mutex<[UInt64]>([])
        let readerReady = DispatchSemaphore(value: 0)
        let readerDone = DispatchSemaphore(value: 0)
        let path = daemon.socketPath
        Thread {
            defer { readerDone.signal() }
            guard let reader = try? TestClient(path: path), (try? reader.hello()) != nil else {
                readerReady.signal()
                return
            }
            readerReady.signal()
            while let line = try? reader.readLine(timeout: 10), let seq = (try? JSON.parse(line))?["seq"]?.integerValue {
                received.withLock { $0.append(UInt64(seq)) }
            }
        }.start()
        readerReady.wait()
        #expect(waitUntil { daemon.server.clientCount == 2 })
        // Journaled first and published in one burst, as a pipeline finishing its last scans does; about 500 KB,
        // more than a socket buffer holds, so much of it still waits in the server's queue at stop.
        let payload = JSON.string(String(repeating: "s", count: 1_000))
        let events = try (0..<500).map { _ in try daemon.journal.append(type: "verdict", fields: [("padding", payload)]) }
        for event in events { daemon.server.publish(event) }
        let stopStarted = ContinuousClock.now
        daemon.server.stop()
        // The stalled client holds stop up to its one-second limit, no longer.
        #expect(ContinuousClock.now - stopStarted < .seconds(3))
        #expect(readerDone.wait(timeout: .now() + 15) == .success)
        let seqs = received.withLock { $0 }
        let everythingInOrder = seqs == events.map(\.seq)
        #expect(everythingInOrder, "\(seqs.count) of \(events.count) events before the end of stream")
        #expect(stalled.isClosedByServer())
    }

    @Test func aStaleSocketFileIsReplacedAndALiveOneRespected() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        let stale = try boundSocket(at: daemon.socketPath, listening: false)
        close(stale)
        #expect(access(daemon.socketPath, F_OK) == 0)
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()

        let second = VerdictServer(configuration: VerdictServerConfiguration(path: daemon.socketPath))
        #expect(throws: VerdictServerError.alreadyServed(path: daemon.socketPath)) { try second.listen() }
        #expect("\(VerdictServerError.alreadyServed(path: "/x"))".contains("already listening on /x"))
        let stillServed = try TestClient(path: daemon.socketPath)
        try stillServed.hello()
        let event = try daemon.emit("verdict")
        #expect(try client.readLine() == event.line)
    }

    @Test func aPathThatIsNotASocketIsLeftAlone() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        #expect(FileManager.default.createFile(atPath: daemon.socketPath, contents: Data("keep me".utf8)))
        #expect(throws: VerdictServerError.notASocket(path: daemon.socketPath)) { try daemon.start() }
        #expect(FileManager.default.contents(atPath: daemon.socketPath) == Data("keep me".utf8))
    }

    @Test func anInheritedDescriptorIsUsedAsIsAndItsFileKept() throws {
        var inherited: Int32 = -1
        let daemon = try FakeDaemon(configure: { configuration in
            configuration.path = configuration.path + ".activated"
        })
        defer { daemon.tearDown() }
        let path = daemon.server.configuration.path
        inherited = try boundSocket(at: path, listening: true)
        let activated = VerdictServer(
            configuration: VerdictServerConfiguration(path: path, inheritedDescriptor: inherited))
        try activated.start(journal: daemon.journal, delegate: daemon)
        let client = try TestClient(path: path)
        #expect(try client.hello()["station"] == "dock-3")
        let event = try daemon.journal.append(type: "verdict", fields: [])
        activated.publish(event)
        #expect(try client.readLine() == event.line)
        activated.stop()
        #expect(client.isClosedByServer())
        #expect(access(path, F_OK) == 0)
    }
}

/// A socket bound at `path` by hand: a crashed daemon's leftover, or what systemd passes.
func boundSocket(at path: String, listening: Bool) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let bound = try UnixSocketAddress(path: path).withSocketAddress { bind(descriptor, $0, $1) }
    guard bound == 0, !listening || listen(descriptor, 16) == 0 else {
        close(descriptor)
        throw POSIXError(.EADDRINUSE)
    }
    return descriptor
}
