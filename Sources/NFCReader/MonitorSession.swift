import CPCSCLite
import POSIXSupport
import Synchronization

/// The thread behind one running `NFCMonitor`: it owns a PC/SC context, waits on every
/// matching reader plus the plug-and-play pseudo-reader, hands each presentation to that reader's
/// worker, and rebuilds everything when pcscd goes away and comes back.
final class MonitorSession: Sendable {
    private struct Control {
        var stopping = false
        var canceller: PCSCCanceller?
    }

    private let readerFilter: String?
    private let feedback: Bool
    private let directory: ReaderDirectory
    /// Dates each presentation.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let emit: @Sendable (NFCEvent) -> Void
    private let control = Mutex(Control())
    private let wakeFromBackoff = ThreadSignal()
    private let exited = ThreadSignal()

    init(readerFilter: String?, feedback: Bool, directory: ReaderDirectory, now: @escaping @Sendable () -> ContinuousClock.Instant,
         emit: @escaping @Sendable (NFCEvent) -> Void) {
        self.readerFilter = readerFilter
        self.feedback = feedback
        self.directory = directory
        self.now = now
        self.emit = emit
    }

    /// Ends the session promptly; the monitor thread releases its context on its way out.
    func stop() {
        let alreadyStopping = control.withLock { control in
            defer { control.stopping = true }
            return control.stopping
        }
        guard !alreadyStopping else { return }
        wakeFromBackoff.signal()
        // SCardCancel only ends a wait already in progress, so repeat it until the thread has gone.
        OSThread.start(name: "nfc-cancel") { [self] in
            repeat {
                control.withLock { $0.canceller }?.cancel()
            } while !exited.wait(timeout: .milliseconds(20))
        }
    }

    private var stopping: Bool { control.withLock { $0.stopping } }

    /// The monitor thread's body: returns once the session is stopped.
    func run() {
        var workers: [String: ReaderWorker] = [:]
        var backoff = Backoff()
        var inOutage = false
        defer {
            workers.values.forEach { worker in
                directory.remove(worker.reader)
                worker.stop()
            }
            exited.signal()
        }
        while !stopping {
            do {
                let context = try PCSCContext.establish()
                control.withLock { $0.canceller = context.canceller }
                defer { control.withLock { $0.canceller = nil } }
                try watch(context, workers: &workers) {
                    inOutage = false
                    backoff.reset()
                }
            } catch {
                for name in workers.keys.sorted() {
                    directory.remove(name)
                    workers.removeValue(forKey: name)?.stop()
                    emit(.readerRemoved(name: name))
                }
                if !inOutage {
                    inOutage = true
                    emit(.serviceUnavailable(detail: error.description))
                }
                _ = wakeFromBackoff.wait(timeout: backoff.take())
            }
        }
    }

    /// Watches until the session stops; throws when the context is no longer usable.
    private func watch(_ context: PCSCContext, workers: inout [String: ReaderWorker],
                       reachable: () -> Void) throws(PCSCError) {
        var readers: [ReaderState] = []
        var plugAndPlay = ReaderState(name: ReaderState.plugAndPlay)
        var countAtLastRead: [String: DWORD] = [:]
        var saidNoReaders = false
        var listingNeeded = true
        while !stopping {
            if listingNeeded {
                let names = try context.readers().filter { name in readerFilter.map { name.contains($0) } ?? true }
                reachable()
                for name in workers.keys.sorted() where !names.contains(name) {
                    directory.remove(name)
                    workers.removeValue(forKey: name)?.stop()
                    countAtLastRead[name] = nil
                    emit(.readerRemoved(name: name))
                }
                for name in names where workers[name] == nil {
                    let worker = ReaderWorker(reader: name, feedback: feedback, now: now, emit: emit)
                    workers[name] = worker
                    directory.add(worker)
                    emit(.readerAttached(name: name))
                }
                if names.isEmpty && !saidNoReaders { emit(.noReaders) }
                saidNoReaders = names.isEmpty
                readers = names.map { name in readers.first { $0.name == name } ?? ReaderState(name: name) }
                listingNeeded = false
            }

            var states = readers + [plugAndPlay]
            do throws(PCSCError) {
                guard try context.waitForChange(&states, timeout: DWORD(INFINITE)) else { continue }
            } catch where error.wasCancelled {
                continue
            } catch where error.isUnknownReader {
                listingNeeded = true
                continue
            }
            let presentedAt = now()
            plugAndPlay = states.removeLast()
            if plugAndPlay.changed { listingNeeded = true }
            plugAndPlay.acknowledge()
            for index in states.indices {
                let state = states[index]
                if state.readerGone {
                    listingNeeded = true
                } else if state.cardAbsent {
                    countAtLastRead[state.name] = nil
                } else if state.cardPresent && countAtLastRead[state.name] != state.eventCount {
                    // Once per presentation: pcscd's event count moves only when a tag enters or leaves.
                    countAtLastRead[state.name] = state.eventCount
                    workers[state.name]?.read(.init(at: presentedAt, state: state.event))
                }
                states[index].acknowledge()
            }
            readers = states
        }
    }
}
