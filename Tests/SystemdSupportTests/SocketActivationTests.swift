import SystemdSupport
import TestSupport
import Testing

/// A listening socket handed over as fd 3, as the socket unit does, reaches the service and its clients.
@Suite(.timeLimit(.minutes(1))) struct SocketActivationTests {
    let probe = builtProduct("notify-probe")

    @Test func passedSocketIsTakenAndAClientGetsTheHello() throws {
        let listening = try ActivationSocket()
        let listener = try NotifyListener(form: .path)
        let process = try ChildProcess(service: probe, notify: listener, passing: listening)

        let ready = try #require(listener.receive(timeout: .seconds(10)))
        #expect(ready.assignments["STATUS"] == "probe listening on 1 socket(s)")
        let hello = try #require(try listening.connectAndReadLine(timeout: .seconds(10)))
        #expect(hello == "{\"type\":\"hello\",\"pid\":\(process.pid)}")
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)

        let output = process.standardOutput
        #expect(output.contains("listen: 3\n"))
        // Close-on-exec and cleared variables: a program the service starts must not take the socket for its own.
        #expect(output.contains("cloexec 3: true\n"))
        #expect(output.contains("listen environment left: none\n"))
    }

    @Test func descriptorsMeantForAnotherProcessAreLeftAlone() throws {
        let process = try ChildProcess(
            service: probe, environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"]
        )
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(process.standardOutput.contains("listen: none\n"))
        #expect(process.standardOutput.contains("listen environment left: none\n"))
    }

    /// A LISTEN_FDS of two billion meant for this process: refused at the first descriptor not open, in 4 GiB of
    /// address space (found by fuzz/systemd-env: it was an array of two billion descriptors, 8 GiB, first).
    @Test func aHugeCountStopsAtTheFirstDescriptorNotOpen() throws {
        let process = try ChildProcess(
            service: "/bin/sh",
            arguments: ["-c", "ulimit -v 4194304; export LISTEN_PID=$$ LISTEN_FDS=2147483644; exec \"$0\"", probe]
        )
        #expect(process.waitForExit(timeout: .seconds(10)) == 1)
        #expect(process.standardOutput.contains("listen error: fcntl "), "\(process.standardOutput)")
    }
}
