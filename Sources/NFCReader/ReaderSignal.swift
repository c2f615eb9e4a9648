/// What a reader's LED and buzzer show for a verdict, as ACS readers' pseudo-APDUs (ACR122U API: class `FF`,
/// INS `00`, P1 `40`, P2 the LED states, then T1 and T2 in 100 ms units, the repetitions and the buzzer link).
public enum ReaderSignal: Sendable, Equatable, CaseIterable {
    /// Green and one short beep: a chip's `authentic` with nothing to raise.
    case accepted
    /// Green then orange and one long beep: an item named (a printed code), or a genuine chip whose opened seal the
    /// brand asks to trust less. Never the plain good signal: nothing in hand was proven, or trust is lowered.
    case informational
    /// Red, blinking, and three beeps: replay, bad signature, theft report.
    case alarm
    /// Orange (red and green) and two beeps: anything else.
    case caution

    /// P2: final red (bit 0) and green (1), their masks (2, 3), initial blinking red (4) and green (5), blinking masks (6, 7).
    /// The buzzer (link 01) sounds during each T1 period, once a repetition.
    public var command: [UInt8] {
        switch self {
        case .accepted: [0xFF, 0x00, 0x40, 0xAE, 0x04, 0x01, 0x01, 0x01, 0x01]
        // Green blinking first (T1 = 800 ms, with the buzzer: one long beep), then both LEDs, orange, as the final state.
        case .informational: [0xFF, 0x00, 0x40, 0xEF, 0x04, 0x08, 0x08, 0x01, 0x01]
        case .alarm: [0xFF, 0x00, 0x40, 0x5D, 0x04, 0x02, 0x02, 0x03, 0x01]
        case .caution: [0xFF, 0x00, 0x40, 0xFF, 0x04, 0x01, 0x01, 0x02, 0x01]
        }
    }

    /// Turns off the beep the reader gives by itself at card detection, so that a beep always means a verdict.
    public static let detectionBeepOff: [UInt8] = [0xFF, 0x00, 0x52, 0x00, 0x00]
}
