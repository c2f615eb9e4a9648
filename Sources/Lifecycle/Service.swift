/// One long-running part of the daemon: a source, the station core, the verdict server, the watchdog.
///
/// `run` returns when the service is done for good. Cancellation means stop now.
public protocol Service: Sendable {
    /// A name for the log.
    var name: String { get }
    func run() async throws
}

/// A service that, asked to stop, finishes the work in hand before `run` returns (the station core lets the
/// verifications in flight finish). The group asks it instead of cancelling it, and cancels it only at the deadline.
public protocol GracefullyStoppable: Service {
    /// Called once, from any thread: stop taking work, then return from `run` once the work in hand is done.
    func stopGracefully()
}
