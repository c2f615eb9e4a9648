import Synchronization

/// Passes a source's reports on, but of errors in a row (no `sourceReady` between them) only the 1st,
/// 2nd, 4th, 8th…: a y4m: path on /dev/urandom fails at every reopen, once a second, for ever, and
/// each failure would be a journaled event.
final class RepeatLimitingSink<Wrapped: FrameSink>: FrameSink {
    private let wrapped: Wrapped
    private let errorsInARow = Mutex(0)

    init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    func deliver(_ frame: Frame, live: Bool) -> Bool {
        wrapped.deliver(frame, live: live)
    }

    func report(_ event: QREvent) {
        guard case .sourceError(let id, let detail) = event else {
            if case .sourceReady = event { errorsInARow.withLock { $0 = 0 } }
            wrapped.report(event)
            return
        }
        let count = errorsInARow.withLock { count in
            count += 1
            return count
        }
        guard count & (count - 1) == 0 else { return }
        wrapped.report(count == 1 ? event : .sourceError(id: id, detail: "\(detail) (\(count) errors in a row)"))
    }

    var isStopped: Bool { wrapped.isStopped }
}
