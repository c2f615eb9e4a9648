/// One reader's LED and buzzer, driven from its read thread between reads: on the tag's connection while the tag
/// is there, else on a direct connection to the reader (CCID escape). A reader that refuses the commands is left
/// alone from then on; one that cannot be reached now is skipped, with a note and no error.
struct ReaderFeedback {
    let reader: String
    /// The clock of the verdicts' `publishedAt`.
    let now: () -> ContinuousClock.Instant
    /// A debug line for the daemon's log.
    let note: (String) -> Void
    /// The connection of the last read, kept until its verdict's signal, so the signal reaches the reader through the tag.
    var tagConnection: PCSCCard?
    private var refused = false
    /// The detection beep is turned off at attach, or on the first tag connection when the reader could not take it then.
    private var beepOffPending = true

    init(reader: String, now: @escaping () -> ContinuousClock.Instant, note: @escaping (String) -> Void) {
        self.reader = reader
        self.now = now
        self.note = note
    }

    /// At attach: the detection beep off, through the tag if one is already in the field.
    mutating func attach(context: PCSCContext?) {
        guard let context else { return }
        tagConnection = try? context.connect(to: reader)
        beepOffPending = !send(ReaderSignal.detectionBeepOff, context: context)
        tagConnection = nil
    }

    /// Notes, after the fact, how long after `publishedAt` the command started: the spec allows 5 ms.
    mutating func show(_ signal: ReaderSignal, context: PCSCContext?, publishedAt: ContinuousClock.Instant) {
        defer { tagConnection = nil }
        guard let context, !refused else { return }
        let started = now()
        if beepOffPending && tagConnection != nil {
            beepOffPending = !send(ReaderSignal.detectionBeepOff, context: context)
        }
        if send(signal.command, context: context) {
            note("reader feedback on \(reader): \(signal), started \(started - publishedAt) after the verdict")
        }
    }

    /// Whether the reader took `command`.
    private mutating func send(_ command: [UInt8], context: PCSCContext) -> Bool {
        guard !refused else { return false }
        if let card = tagConnection {
            do {
                return accepted(try card.transmit(command), command: command)
            } catch {
                tagConnection = nil  // the tag left: the reader itself is the way left
            }
        }
        do {
            let card = try context.connectDirect(to: reader)
            return accepted(try card.control(PCSCCard.ccidEscape, command), command: command)
        } catch {
            note("reader feedback skipped on \(reader): no tag in the field and no direct command taken (\(error))")
            return false
        }
    }

    /// ACS readers answer `90 xx` (xx: the LED state); anything else means the reader has no such commands.
    private mutating func accepted(_ answer: [UInt8], command: [UInt8]) -> Bool {
        if answer.count >= 2 && answer[answer.count - 2] == 0x90 { return true }
        refused = true
        let shown = answer.suffix(2).map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
        note("reader feedback off on \(reader): it answered \(shown.isEmpty ? "nothing" : shown) to a LED and buzzer command")
        return false
    }
}
