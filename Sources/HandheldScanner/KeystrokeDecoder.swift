/// Turns a keyboard-wedge scanner's key events into codes: one code per Enter or Tab, nothing partial passed on.
///
/// Gaps are measured on the events' own clock, so a recording plays back as it was typed; the trailing gap
/// (a code that simply stops) has no event to measure it by, so the reader calls `silence()` from a timer.
public struct KeystrokeDecoder: Sendable {
    public enum Output: Sendable, Equatable {
        case code(String)
        case failure(ScannerReadFailure)
    }

    /// A code that stops for longer than this without its terminator is `incomplete`.
    public static let gapLimit: Duration = .milliseconds(100)
    public static let characterLimit = 4096
    static let gapLimitMicroseconds: Int64 = 100_000

    private enum Phase: Sendable {
        case collecting
        /// The rest of a code is thrown away up to its terminator or a gap; `unreported` is said then,
        /// when the code had already lost its start.
        case discarding(unreported: ScannerReadFailure?)
    }

    public let keymap: Keymap
    private var modifiers = Modifiers()
    private var code = String.UnicodeScalarView()
    private var characterCount = 0
    private var phase = Phase.collecting
    private var discardedKeys = false
    private var lastKeyTime: Int64?
    /// Between a SYN_DROPPED and the next SYN_REPORT the kernel's events are partial and are skipped.
    private var skippingToReport = false

    public init(keymap: Keymap) {
        self.keymap = keymap
    }

    /// True while a code has started and not ended: the reader then arms its silence timer.
    public var isPending: Bool {
        if case .discarding = phase { return true }
        return characterCount > 0
    }

    public mutating func feed(_ event: InputEvent, _ emit: (Output) -> Void) {
        switch event.type {
        case InputEvent.synchronisation:
            if event.code == InputEvent.dropped {
                skippingToReport = true
                lostEvents(emit)
            } else if event.code == InputEvent.report {
                skippingToReport = false
            }
        case InputEvent.key where !skippingToReport && event.value != 2:
            let pressed = event.value != 0
            if let last = lastKeyTime, isPending, event.time - last > Self.gapLimitMicroseconds {
                endAtGap(emit)
            }
            lastKeyTime = event.time
            if KeyCode.isModifier(event.code) {
                modifiers.update(code: event.code, pressed: pressed)
            } else if pressed {
                press(event.code, emit)
            }
        default:
            break
        }
    }

    /// The reader's timer: more than `gapLimit` has passed since the last event, and none came.
    public mutating func silence(_ emit: (Output) -> Void) {
        guard isPending else { return }
        endAtGap(emit)
    }

    /// The device went away or its stream ended: a code in progress is `incomplete`, and no key is held any more.
    public mutating func end(_ emit: (Output) -> Void) {
        if characterCount > 0, case .collecting = phase {
            emit(.failure(ScannerReadFailure(.incomplete, "the scanner went away in the middle of a code, after \(charactersSoFar)")))
        } else if case .discarding(let unreported?) = phase, discardedKeys {
            emit(.failure(unreported))
        }
        restart()
        modifiers = Modifiers()
        lastKeyTime = nil
        skippingToReport = false
    }

    private mutating func press(_ key: UInt16, _ emit: (Output) -> Void) {
        if KeyCode.isTerminator(key) {
            switch phase {
            case .collecting:
                if characterCount > 0 { emit(.code(String(code))) }
            case .discarding(let unreported):
                if let unreported { emit(.failure(unreported)) }
            }
            restart()
            return
        }
        if case .discarding = phase {
            discardedKeys = true
            return
        }
        guard let character = keymap.character(for: key, with: modifiers) else {
            emit(.failure(ScannerReadFailure(.unmappedKey, "key code \(key)\(modifierNames) has no character in the \(keymap.layout.rawValue) keymap")))
            phase = .discarding(unreported: nil)
            return
        }
        guard characterCount < Self.characterLimit else {
            emit(.failure(ScannerReadFailure(.tooLong, "the code runs past \(Self.characterLimit) characters")))
            phase = .discarding(unreported: nil)
            return
        }
        code.append(character)
        characterCount += 1
    }

    private mutating func lostEvents(_ emit: (Output) -> Void) {
        modifiers.releaseAll()
        switch phase {
        case .collecting where characterCount > 0:
            emit(.failure(ScannerReadFailure(.incomplete, "key events were lost (SYN_DROPPED) after \(charactersSoFar)")))
            restart()
            phase = .discarding(unreported: nil)
        case .collecting:
            restart()
            phase = .discarding(unreported: ScannerReadFailure(.incomplete, "key events were lost (SYN_DROPPED) at the start of a code"))
        case .discarding:
            break
        }
    }

    /// "1 character", "12 characters": how far a cut-off code got, for its message.
    private var charactersSoFar: String {
        characterCount == 1 ? "1 character" : "\(characterCount) characters"
    }

    private mutating func endAtGap(_ emit: (Output) -> Void) {
        switch phase {
        case .collecting:
            emit(.failure(ScannerReadFailure(.incomplete, "the code stopped after \(charactersSoFar) without Enter or Tab")))
        case .discarding(let unreported):
            if let unreported, discardedKeys { emit(.failure(unreported)) }
        }
        restart()
    }

    private mutating func restart() {
        code = String.UnicodeScalarView()
        characterCount = 0
        phase = .collecting
        discardedKeys = false
    }

    private var modifierNames: String {
        let names = [(modifiers.control, "Ctrl"), (modifiers.alt, "Alt"), (modifiers.altGr, "AltGr"), (modifiers.shift, "Shift")]
            .filter(\.0).map(\.1)
        return names.isEmpty ? "" : " with " + names.joined(separator: "+")
    }
}
