// A stand-in service for the SystemdSupport tests: it does, with the module, what the daemon does at start,
// in its main loop and on the way out, and prints what it was given so the test can compare.
#if canImport(Glibc)
import Glibc
#endif
import POSIXSupport
import SystemdSupport

/// Unbuffered, so the test sees each line even when the probe is killed.
func report(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

if CommandLine.arguments.dropFirst().first == "--runtime" {
    let result = await exerciseRuntime()
    report("runtime: \(result)")
    exit(result == "ok" ? 0 : 1)
}

let beats = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 3

switch SocketActivation.takeDescriptors() {
case .success(let descriptors):
    report("listen: \(descriptors.isEmpty ? "none" : descriptors.map(String.init).joined(separator: " "))")
    for descriptor in descriptors {
        report("cloexec \(descriptor): \(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)")
    }
    let variables: [String] = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]
    let leftOver = variables.filter { getenv($0) != nil }
    report("listen environment left: \(leftOver.isEmpty ? "none" : leftOver.joined(separator: " "))")
    let notifier = SystemdNotifier.fromEnvironment()
    _ = notifier?.send("READY=1\nSTATUS=probe listening on \(descriptors.count) socket(s)")
    for descriptor in descriptors {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else {
            report("accept failed: \(SystemCallError("accept"))")
            exit(1)
        }
        let hello = "{\"type\":\"hello\",\"pid\":\(getpid())}\n"
        _ = hello.withCString { write(client, $0, strlen($0)) }
        close(client)
    }
    guard let notifier else {
        report("notify: none")
        exit(0)
    }
    guard let interval = notifier.watchdogInterval else {
        report("watchdog: none")
        _ = notifier.send("STOPPING=1")
        exit(0)
    }
    report("watchdog: \(interval)")
    for beat in 1...max(beats, 1) {
        try? await Task.sleep(for: interval)
        if case .failure(let error) = notifier.send("WATCHDOG=1\nSTATUS=beat \(beat)") {
            report("send failed: \(error)")
            exit(1)
        }
    }
    _ = notifier.send("STOPPING=1")
case .failure(let error):
    report("listen error: \(error)")
    exit(1)
}
