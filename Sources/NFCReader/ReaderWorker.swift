import CPCSCLite
import POSIXSupport
import Synchronization

/// One reader's reads, on a thread and PC/SC context of their own: a slow or stuck tag on one
/// reader never holds up the monitor or another reader.
final class ReaderWorker: Sendable {
    /// A tag entering the field, as the monitor saw it.
    struct Presentation: Sendable {
        let at: ContinuousClock.Instant
        /// The reader's state at that moment, event count included.
        let state: DWORD
    }

    private struct Inbox {
        var presentation: Presentation?
        /// The latest verdict's signal, and when the verdict was published.
        var signal: (ReaderSignal, publishedAt: ContinuousClock.Instant)?
        var stopping = false
    }

    /// How long pcscd may take to notice a tag that vanished in the middle of an exchange (it polls readers).
    private static let removalGrace: Duration = .seconds(1)

    let reader: String
    /// Dates a URI in hand, on the clock of the presentation's time.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let emit: @Sendable (NFCEvent) -> Void
    /// Whether this reader's LED and buzzer show verdicts.
    private let feedback: Bool
    private let inbox = Mutex(Inbox())
    private let wake = ThreadSignal()

    init(reader: String, feedback: Bool, now: @escaping @Sendable () -> ContinuousClock.Instant, emit: @escaping @Sendable (NFCEvent) -> Void) {
        self.reader = reader
        self.feedback = feedback
        self.now = now
        self.emit = emit
        OSThread.start(name: "nfc-read") { [self] in run() }
    }

    func read(_ presentation: Presentation) {
        inbox.withLock { $0.presentation = presentation }
        wake.signal()
    }

    /// Shows `signal` on the reader once the thread is idle: after the read in hand, never in the way of one.
    func show(_ signal: ReaderSignal, publishedAt: ContinuousClock.Instant) {
        inbox.withLock { $0.signal = (signal, publishedAt) }
        wake.signal()
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run() {
        var context = try? PCSCContext.establish()  // ready before the first tap, not during it
        let reader = reader, emit = emit
        var lights = feedback ? ReaderFeedback(reader: reader, now: now) { emit(.feedbackSkipped(reader: reader, detail: $0)) } : nil
        lights?.attach(context: context)
        while true {
            wake.wait()
            let (presentation, signal, stopping) = inbox.withLock { inbox in
                defer { inbox.presentation = nil; inbox.signal = nil }
                return (inbox.presentation, inbox.signal, inbox.stopping)
            }
            if stopping { return }
            if let presentation {
                lights?.tagConnection = nil
                let (event, card) = read(presentation, context: &context)
                emit(event)
                // The tag's transaction and connection end after the event: two pcscd round trips off the tap's path.
                card?.endTransaction()
                lights?.tagConnection = card
            }
            if let (signal, publishedAt) = signal {
                lights?.show(signal, context: context, publishedAt: publishedAt)
            }
        }
    }

    /// The event, and after a read the tag's connection with its transaction still open, for the caller to end.
    private func read(_ presentation: Presentation, context: inout PCSCContext?) -> (NFCEvent, PCSCCard?) {
        do {
            let connection = try context ?? PCSCContext.establish()
            context = connection
            let (uri, readAt, card) = try readURI(over: connection)
            return (.tagRead(TagRead(reader: reader, uri: uri, presentedAt: presentation.at, readDuration: readAt - presentation.at)),
                    card)
        } catch let failure as TagReadFailure {
            return (.tagFailed(reader: reader, failure: failure), nil)
        } catch let error as PCSCError where error.cardIsGone {
            return (.tagFailed(reader: reader, failure: .removedDuringRead), nil)
        } catch let error as PCSCError where error.exchangeFailed {
            return (.tagFailed(reader: reader, failure: brokenExchange(error.description, since: presentation, context: context)), nil)
        } catch let error as TruncatedResponse {
            return (.tagFailed(reader: reader, failure: brokenExchange(error.description, since: presentation, context: context)), nil)
        } catch let error as PCSCError {
            context = nil  // perhaps pcscd went away: the next read starts afresh
            return (.tagFailed(reader: reader, failure: .io(error.description)), nil)
        } catch {
            return (.tagFailed(reader: reader, failure: .io(String(describing: error))), nil)
        }
    }

    /// The URI, the moment it was in hand, and the connection in its transaction, which the caller ends once the URI
    /// is reported (and keeps, for the verdict's signal, when the reader shows verdicts).
    private func readURI(over context: PCSCContext) throws -> (String, ContinuousClock.Instant, PCSCCard) {
        let card = try context.connect(to: reader)
        try card.beginTransaction()
        do {
            let message = try Type4Tag(transmit: { command in try card.transmit(command.bytes) }).readNDEFMessage()
            let uri = try NDEFMessage.firstURI(in: message)
            return (uri, now(), card)
        } catch {
            card.endTransaction()
            throw error
        }
    }

    /// An exchange that broke off is the tag leaving the field when pcscd soon sees it gone, else an I/O failure.
    private func brokenExchange(_ detail: String, since presentation: Presentation, context: PCSCContext?) -> TagReadFailure {
        tagLeft(since: presentation, context: context) ? .removedDuringRead : .io(detail)
    }

    /// Whether the tag left the field since `presentation`, waiting a little for pcscd to notice.
    private func tagLeft(since presentation: Presentation, context: PCSCContext?) -> Bool {
        guard let context else { return false }
        // A wait for pcscd, on the system's clock as its timeout counts.
        let deadline = ContinuousClock.now + Self.removalGrace
        var states = [ReaderState(name: reader, current: presentation.state)]
        while case let remaining = deadline - .now, remaining > .zero {
            let timeout = DWORD(remaining.roundedUpMilliseconds)
            guard (try? context.waitForChange(&states, timeout: timeout)) == true else { return false }
            let state = states[0]
            if state.readerGone || state.cardAbsent || state.eventCount != presentation.state >> 16 {
                return true
            }
            states[0].acknowledge()
        }
        return false
    }
}
