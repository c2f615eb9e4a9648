/// The modifier keys held down and Caps Lock's state, as the scanner's key events left them.
struct Modifiers: Sendable, Equatable {
    private var held: Set<UInt16> = []
    private(set) var capsLock = false

    var shift: Bool { held.contains(KeyCode.leftShift) || held.contains(KeyCode.rightShift) }
    var control: Bool { held.contains(KeyCode.leftControl) || held.contains(KeyCode.rightControl) }
    var alt: Bool { held.contains(KeyCode.leftAlt) }
    var altGr: Bool { held.contains(KeyCode.rightAlt) }

    /// `value` as in `input_event`: 1 pressed, 0 released (repeats are filtered out before).
    mutating func update(code: UInt16, pressed: Bool) {
        if pressed {
            held.insert(code)
            if code == KeyCode.capsLock { capsLock.toggle() }
        } else {
            held.remove(code)
        }
    }

    /// After lost events nothing is known to be held; a lock keeps its state (the scanner toggles it back itself).
    mutating func releaseAll() {
        held.removeAll()
    }
}
