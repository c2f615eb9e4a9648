import Glibc
import POSIXSupport
import SystemdSupport

/// Runs the daemon's services: starts them in order, owns the signals, and stops them in reverse order.
///
/// SIGTERM or SIGINT stops the group gracefully: each service in turn, last started first, is asked to stop
/// (a `GracefullyStoppable` one finishes its work in hand, any other is cancelled), and the group waits for it
/// before the next; whatever still runs at the deadline is cancelled. SIGHUP calls `reload` on a thread. systemd hears
/// READY once every service is started, RELOADING around a reload, STOPPING on the way out (STATUS comes from the
/// station core, through the same notifier).
public final class ServiceGroup: Sendable {
    public struct Hooks: Sendable {
        /// Every service is started and systemd heard READY: the moment for the first STATUS.
        public var started: @Sendable () -> Void
        /// SIGHUP: read the configuration again; runs on a `reload` thread, and may block it.
        public var reload: @Sendable () -> Void
        /// A stop begins, with the signal's name.
        public var stopping: @Sendable (String) -> Void
        /// A service ended on its own, with its error if it threw.
        public var serviceEnded: @Sendable (String, (any Error)?) -> Void

        public init(started: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void,
                    stopping: @escaping @Sendable (String) -> Void,
                    serviceEnded: @escaping @Sendable (String, (any Error)?) -> Void) {
            self.started = started
            self.reload = reload
            self.stopping = stopping
            self.serviceEnded = serviceEnded
        }
    }

    private let services: [any Service]
    private let stopDeadline: Duration
    private let notifier: SystemdNotifier?
    private let hooks: Hooks

    /// `stopDeadline`: how long a graceful stop may take in all before the rest is cancelled.
    public init(services: [any Service], stopDeadline: Duration, notifier: SystemdNotifier?, hooks: Hooks) {
        self.services = services
        self.stopDeadline = stopDeadline
        self.notifier = notifier
        self.hooks = hooks
    }

    private enum Ending: Sendable {
        case service(Int, (any Error)?)
        case stopRequested(String)
        case deadline
    }

    /// Runs the group from a synchronous `main`, blocking the calling thread until every service has stopped.
    ///
    /// `main` stays synchronous on purpose: an async `main` hands the main thread to libdispatch, which parks it in
    /// sigsuspend(2) with every signal unblocked, and a SIGTERM taken there ends the process with its default action.
    /// The main thread waits here instead, its signals blocked, so the watcher thread takes every one.
    public func runBlockingMainThread() {
        let stopped = ThreadSignal()
        Task.detached {
            await self.run()
            stopped.signal()
        }
        stopped.wait()
    }

    /// Returns once every service has stopped, after a stop signal (or once all ended on their own).
    public func run() async {
        let signals = SignalWatcher.requests()
        let stops = services.map { _ in Latch() }
        await withTaskGroup(of: Ending.self) { group in
            for (index, service) in services.enumerated() {
                let stop = stops[index]
                group.addTask {
                    do {
                        try await Self.run(service, until: stop)
                        return .service(index, nil)
                    } catch {
                        return .service(index, error)
                    }
                }
            }
            notifier?.send("READY=1")
            hooks.started()
            group.addTask { [hooks, notifier] in
                for await request in signals {
                    switch request {
                    case .reload:
                        // systemd (Type=notify-reload) wants the CLOCK_MONOTONIC time of the reload's start with RELOADING=1.
                        notifier?.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
                        // The hook reads files (the configuration, a CA bundle, the token): a thread's work, not the pool's.
                        let _: Void = await OSThread.value(name: "reload") { deliver in
                            hooks.reload()
                            deliver(())
                        }
                        notifier?.send("READY=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
                    case .stop(let name):
                        return .stopRequested(name)
                    }
                }
                return .stopRequested("cancelled")
            }

            var running = Set(services.indices)
            while !running.isEmpty, let ending = await group.next() {
                switch ending {
                case .service(let index, let error):
                    running.remove(index)
                    hooks.serviceEnded(services[index].name, error)
                case .stopRequested(let signal):
                    notifier?.send("STOPPING=1")
                    hooks.stopping(signal)
                    await stopInReverse(&running, stops: stops, group: &group)
                    group.cancelAll()
                    return
                case .deadline:
                    break
                }
            }
            group.cancelAll()
        }
    }

    /// Stops the running services one at a time, last started first, within the deadline.
    private func stopInReverse(_ running: inout Set<Int>, stops: [Latch], group: inout TaskGroup<Ending>) async {
        let deadline = stopDeadline
        group.addTask {
            try? await Task.sleep(for: deadline)
            return .deadline
        }
        for index in services.indices.reversed() where running.contains(index) {
            if let service = services[index] as? any GracefullyStoppable {
                service.stopGracefully()
            } else {
                stops[index].open()
            }
            while running.contains(index), let ending = await group.next() {
                switch ending {
                case .service(let ended, let error):
                    running.remove(ended)
                    if let error, !(error is CancellationError) { hooks.serviceEnded(services[ended].name, error) }
                case .deadline:
                    // Out of time: what is left is cancelled, and the group waits for it to end.
                    for remaining in running { stops[remaining].open() }
                    group.cancelAll()
                case .stopRequested:
                    break
                }
            }
        }
    }

    /// Runs the service until it returns or `stop` finishes, which cancels it.
    /// CLOCK_MONOTONIC in microseconds, as sd_notify's MONOTONIC_USEC= takes it.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }

    private static func run(_ service: any Service, until stop: Latch) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.run() }
            group.addTask { await stop.wait() }
            try await group.next()
            group.cancelAll()
        }
    }
}
