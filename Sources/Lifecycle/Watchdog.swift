import SystemdSupport

/// Feeds systemd's watchdog from the task pool that runs the scans, so a daemon whose pool is wedged stops feeding it.
public struct Watchdog: Service {
    public let name = "watchdog"
    let notifier: SystemdNotifier
    let interval: Duration

    /// nil when systemd set no watchdog for this process.
    public init?(notifier: SystemdNotifier?) {
        guard let notifier, let interval = notifier.watchdogInterval else { return nil }
        self.notifier = notifier
        self.interval = interval
    }

    public func run() async throws {
        while true {
            notifier.send("WATCHDOG=1")
            try await Task.sleep(for: interval)
        }
    }
}
