import Synchronization

/// The running readers' workers by name, so that a verdict's signal reaches the reader that read its tag.
final class ReaderDirectory: Sendable {
    private let workers = Mutex<[String: ReaderWorker]>([:])

    func add(_ worker: ReaderWorker) {
        workers.withLock { $0[worker.reader] = worker }
    }

    func remove(_ name: String) {
        workers.withLock { _ = $0.removeValue(forKey: name) }
    }

    func worker(named name: String) -> ReaderWorker? {
        workers.withLock { $0[name] }
    }
}
