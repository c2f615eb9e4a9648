import BridgeTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The bridge's state folder, its files and its stderr: each case once crashed it, hung it, ran it without a position,
/// or logged every second (issues 27 and 29). No broker is needed where the start is refused.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct StateAndStartTests {
    /// A bridge that reaches no daemon and no broker: enough to see how it starts.
    func bridge(stateDirectory: String, extra: [String] = [], notify: NotifyListener? = nil) throws -> BridgeProcess {
        try BridgeProcess(arguments: ["--socket", "/nonexistent/scand.sock", "--url", "mqtt://127.0.0.1:\(try freeLoopbackPort())",
                                      "--state-dir", stateDirectory] + extra, notify: notify)
    }

    @Test func aMissingStateFolderIsMadeForTheBridgeAloneAndHoldsThePosition() throws {
        let parent = try makeScratchDirectory("bridge-state-parent")
        let state = parent + "/state"
        let status = try StatusRecorder()
        let bridge = try bridge(stateDirectory: state, notify: status.listener)
        try status.waitForAny("degraded", timeout: .seconds(10))
        var info = stat()
        #expect(stat(state, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(BridgeProcess.savedSeq(in: state) == 0)
        #expect(bridge.stop() == 0)
    }

    @Test func aStateFolderThatCannotBeMadeOrWrittenRefusesTheStartNamingIt() throws {
        let parent = try makeScratchDirectory("bridge-state")
        let unreachable = parent + "/missing/state"
        let first = try bridge(stateDirectory: unreachable)
        #expect(first.waitForExit(timeout: .seconds(10)) == 2)
        #expect(first.log.contains("cannot make the state folder \(unreachable)"), "\(first.log)")

        // A folder whose files cannot be replaced (the temporary file's name is taken by a folder): no place to keep the position.
        #expect(mkdir(parent + "/acked-seq.new", 0o700) == 0)
        let second = try bridge(stateDirectory: parent)
        #expect(second.waitForExit(timeout: .seconds(10)) == 2)
        #expect(second.log.contains("cannot keep the position in \(parent)/acked-seq"), "\(second.log)")
    }

    /// 2^64 - 1 was read, then `saved + 1` trapped (exit 132), and Restart=on-failure made that a loop.
    @Test func anAcknowledgedSeqOutOfRangeIsRefusedWithItsNameNotACrash() throws {
        let state = try makeScratchDirectory("bridge-state")
        try "18446744073709551615\n".write(toFile: state + "/acked-seq", atomically: true, encoding: .utf8)
        let bridge = try bridge(stateDirectory: state)
        #expect(bridge.waitForExit(timeout: .seconds(10)) == 1)
        #expect(bridge.log.contains("\(state)/acked-seq does not hold a seq from 0 to 9223372036854775807"), "\(bridge.log)")
    }

    /// A FIFO as `acked-seq` held the bridge in open(), SIGTERM blocked, until a SIGKILL.
    @Test func aFIFOAsTheAcknowledgedSeqIsNamedAndDoesNotHoldTheStart() throws {
        let state = try makeScratchDirectory("bridge-state")
        #expect(mkfifo(state + "/acked-seq", 0o600) == 0)
        let bridge = try bridge(stateDirectory: state)
        #expect(bridge.waitForExit(timeout: .seconds(10)) == 1)
        #expect(bridge.log.contains("\(state)/acked-seq is not a regular file"), "\(bridge.log)")
    }

    @Test func aCredentialsFileOthersMayReadIsRefusedAsSSHRefusesAKey() throws {
        let state = try makeScratchDirectory("bridge-state")
        let credentials = state + "/credentials"
        try "station:secret\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        #expect(chmod(credentials, 0o644) == 0)
        let bridge = try bridge(stateDirectory: state, extra: ["--credentials", credentials])
        #expect(bridge.waitForExit(timeout: .seconds(10)) == 2)
        #expect(bridge.log.contains("the credentials file \(credentials) is open to others (mode 644)"), "\(bridge.log)")
        #expect(!bridge.log.contains("secret"))
    }

    /// `sealtrust-mqtt … 2>&1 >/dev/null | head -1`: the first line went, the next write failed and trapped (SIGILL).
    @Test func aStderrWhoseReaderHasGoneDoesNotStopTheBridge() throws {
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        close(descriptors[0])  // the reader has gone: every write to stderr fails with EPIPE
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtProduct("sealtrust-mqtt"))
        process.arguments = ["--socket", "/nonexistent/scand.sock", "--url", "mqtt://127.0.0.1:\(try freeLoopbackPort())", "--state-dir", state]
        process.environment = ["NOTIFY_SOCKET": status.listener.address]
        process.standardError = FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
        try process.run()
        // Two failed attempts at the broker, each logged (to the broken pipe) before the next: the bridge went on.
        try waitUntil("the bridge did not go on past its log lines; last STATUS=\(status.last)", timeout: .seconds(15)) {
            status.last.contains("degraded") && process.isRunning && BridgeProcess.savedSeq(in: state) == 0
        }
        try waitUntil("not two failed attempts at the broker", timeout: .seconds(15)) { status.count(containing: "retry in") >= 2 }
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// A state folder that stops taking writes (here the temporary file's name taken by a folder): said once when it
    /// starts and once when it ends, not every second, while the events still reach the broker.
    @Test func aStateFolderThatStopsTakingWritesIsSaidOnceNotEverySecond() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let state = try makeScratchDirectory("bridge-state")
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(daemon: daemon, broker: broker, stateDirectory: state, notify: status.listener)
        try daemon.scanForeignCodes(5, tag: "before")
        try waitUntil("seq 10 was not saved", timeout: .seconds(20)) { BridgeProcess.savedSeq(in: state) == 10 }
        #expect(mkdir(state + "/acked-seq.new", 0o700) == 0)
        for (round, last) in [(1, 20), (2, 30)] {
            try daemon.scanForeignCodes(5, tag: "round-\(round)")
            try subscriber.waitForEvents(through: UInt64(last), timeout: .seconds(20))
            // STATUS= follows the save attempt of the same second: once it says the seq, that seq's save has failed.
            try status.waitFor("acked seq \(last),", timeout: .seconds(10))
        }
        let failure = "cannot save the acknowledged seq in \(state)/acked-seq"
        #expect(bridge.log.components(separatedBy: failure).count == 2, "\(bridge.log)")
        #expect(BridgeProcess.savedSeq(in: state) == 10)
        #expect(rmdir(state + "/acked-seq.new") == 0)
        try waitUntil("seq 30 was not saved once the folder took writes again", timeout: .seconds(10)) { BridgeProcess.savedSeq(in: state) == 30 }
        try waitUntil("the recovery was not said", timeout: .seconds(5)) { bridge.log.contains("is saved in \(state)/acked-seq again") }
        #expect(bridge.stop() == 0)
    }
}
