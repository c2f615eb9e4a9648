/// The keyboard layouts a keyboard-wedge scanner may be set to type in (`--scanner-keymap`).
public enum KeymapLayout: String, Sendable, CaseIterable {
    case us
    /// German QWERTZ.
    case de
    /// French AZERTY.
    case fr
}
