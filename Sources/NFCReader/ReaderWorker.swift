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
        var stopping = false
    }

    /// How long pcscd may take to notice a tag that vanished in the middle of an exchange (it polls readers).
    private static let removalGrace: Duration = .seconds(1)

    let reader: String
    private let emit: @Sendable (NFCEvent) -> Void
    private let inbox = Mutex(Inbox())
    private let wake = ThreadSignal()

    init(reader: String, emit: @escaping @Sendable (NFCEvent) -> Void) {
        self.reader = reader
        self.emit = emit
        OSThread.start(name: "nfc-read") { [self] in run() }
    }

    func read(_ presentation: Presentation) {
        inbox.withLock { $0.presentation = presentation }
        wake.signal()
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run() {
        var context = try? PCSCContext.establish()  // ready before the first tap, not during it
        while true {
            wake.wait()
            let (presentation, stopping) = inbox.withLock { inbox in
                defer { inbox.presentation = nil }
                return (inbox.presentation, inbox.stopping)
            }
            if stopping { return }
            if let presentation {
                emit(read(presentation, context: &context))
            }
        }
    }

    private func read(_ presentation: Presentation, context: inout PCSCContext?) -> NFCEvent {
        do {
            let connection = try context ?? PCSCContext.establish()
            context = connection
            let (uri, readAt) = try readURI(over: connection)
            return .tagRead(TagRead(reader: reader, uri: uri, presentedAt: presentation.at,
                                    readDuration: readAt - presentation.at))
        } catch let failure as TagReadFailure {
            return .tagFailed(reader: reader, failure: failure)
        } catch let error as PCSCError where error.cardIsGone {
            return .tagFailed(reader: reader, failure: .removedDuringRead)
        } catch let error as PCSCError where error.exchangeFailed {
            return .tagFailed(reader: reader, failure: brokenExchange(error.description, since: presentation, context: context))
        } catch let error as TruncatedResponse {
            return .tagFailed(reader: reader, failure: brokenExchange(error.description, since: presentation, context: context))
        } catch let error as PCSCError {
            context = nil  // perhaps pcscd went away: the next read starts afresh
            return .tagFailed(reader: reader, failure: .io(error.description))
        } catch {
            return .tagFailed(reader: reader, failure: .io(String(describing: error)))
        }
    }

    /// The URI and the moment it was in hand, before the connection is closed.
    private func readURI(over context: PCSCContext) throws -> (String, ContinuousClock.Instant) {
        let card = try context.connect(to: reader)
        try card.beginTransaction()
        defer { card.endTransaction() }
        let message = try Type4Tag(transmit: { command in try card.transmit(command.bytes) }).readNDEFMessage()
        let uri = try NDEFMessage.firstURI(in: message)
        return (uri, .now)
    }

    /// An exchange that broke off is the tag leaving the field when pcscd soon sees it gone, else an I/O failure.
    private func brokenExchange(_ detail: String, since presentation: Presentation, context: PCSCContext?) -> TagReadFailure {
        tagLeft(since: presentation, context: context) ? .removedDuringRead : .io(detail)
    }

    /// Whether the tag left the field since `presentation`, waiting a little for pcscd to notice.
    private func tagLeft(since presentation: Presentation, context: PCSCContext?) -> Bool {
        guard let context else { return false }
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
