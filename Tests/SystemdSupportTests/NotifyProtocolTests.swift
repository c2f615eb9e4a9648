#if canImport(Glibc)
import Glibc
#endif
import POSIXSupport
import SystemdSupport
import TestSupport
import Testing

/// The messages a service manager receives from the probe, which uses SystemdSupport as the daemon does.
@Suite(.timeLimit(.minutes(1))) struct NotifyProtocolTests {
    let probe = builtProduct("notify-probe")

    @Test(arguments: [NotifyListener.Form.path, .abstract])
    func readyStatusWatchdogAndStoppingReachTheManager(form: NotifyListener.Form) throws {
        let listener = try NotifyListener(form: form)
        let process = try ChildProcess(service: probe, arguments: ["3"], notify: listener, watchdog: .milliseconds(600))
        let started = ContinuousClock.now

        let ready = try #require(listener.receive(timeout: .seconds(10)), "no READY=1 at \(listener.address)")
        #expect(ready.assignments["READY"] == "1")
        #expect(ready.assignments["STATUS"] == "probe listening on 0 socket(s)")
        // NotifyAccess=main accepts only the main process: the message must come from the exec'd pid itself.
        #expect(ready.senderPID == process.pid)

        let beats = try #require(listener.receive(until: "STOPPING", timeout: .seconds(10)))
        let watchdog = beats.filter { $0.assignments["WATCHDOG"] == "1" }
        #expect(watchdog.map { $0.assignments["STATUS"] } == ["beat 1", "beat 2", "beat 3"])
        #expect(beats.last?.assignments["STOPPING"] == "1")
        // Half of WATCHDOG_USEC: three beats take about 900 ms, well inside 3 × 600 ms and not much faster.
        let gaps = zip([ready] + watchdog, watchdog).map { $1.receivedAt - $0.receivedAt }
        for gap in gaps {
            #expect(gap >= .milliseconds(250) && gap < .milliseconds(600), "beat gap \(gap)")
        }
        #expect(watchdog.last!.receivedAt - started < .milliseconds(1800))
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(process.standardOutput.contains("watchdog: 0.3 seconds"))
    }

    @Test func watchdogMeantForAnotherProcessIsNotFed() throws {
        let listener = try NotifyListener(form: .abstract)
        let process = try ChildProcess(
            service: probe, notify: listener, watchdog: .milliseconds(600), watchdogPID: "1"
        )
        let messages = try #require(listener.receive(until: "STOPPING", timeout: .seconds(10)))
        #expect(messages.allSatisfy { $0.assignments["WATCHDOG"] == nil })
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(process.standardOutput.contains("watchdog: none"))
    }

    @Test func withoutNotifySocketNothingIsSentAndTheServiceStillRuns() throws {
        let process = try ChildProcess(service: probe)
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(process.standardOutput.contains("notify: none"))
        #expect(SystemdNotifier(notifySocket: "").watchdogInterval == nil)
    }

    @Test func anAddressTheProtocolCannotReachIsAnErrorWithItsErrno() {
        let relative = SystemdNotifier(notifySocket: "run/notify")
        #expect(relative.send("READY=1").failure?.errno == Errno(EAFNOSUPPORT))
        let tooLong = SystemdNotifier(notifySocket: "/" + String(repeating: "x", count: 200))
        #expect(tooLong.send("READY=1").failure?.errno == Errno(ENAMETOOLONG))
        let nobodyListening = SystemdNotifier(notifySocket: "/nonexistent/sealtrust/notify.sock")
        #expect(nobodyListening.send("READY=1").failure?.errno == Errno(ENOENT))
        // Found by fuzz/systemd-env: "/" and a combining mark after it were one Character, not a path.
        let combining = SystemdNotifier(notifySocket: "/\u{35C}nonexistent/notify.sock")
        #expect(combining.send("READY=1").failure?.errno == Errno(ENOENT))
        let abstractCombining = SystemdNotifier(notifySocket: "@\u{35C}sealtrust-nobody-listens")
        #expect(abstractCombining.send("READY=1").failure?.errno == Errno(ECONNREFUSED))
    }

    @Test func watchdogIntervalIsHalfTheTimeoutForThisProcessOnly() {
        let own = String(getpid())
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "30000000", watchdogPID: own).watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "30000000").watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "30000000", watchdogPID: "1").watchdogInterval == nil)
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "0").watchdogInterval == nil)
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "soon").watchdogInterval == nil)
        // Found by fuzz/systemd-env: half of 1 µs was zero, a watchdog loop without a pause.
        #expect(SystemdNotifier(notifySocket: "@x", watchdogMicroseconds: "1").watchdogInterval == .microseconds(1))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
