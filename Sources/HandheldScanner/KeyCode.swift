/// The Linux key codes (`linux/input-event-codes.h`) the decoder treats specially.
enum KeyCode {
    static let tab: UInt16 = 15
    static let enter: UInt16 = 28
    static let keypadEnter: UInt16 = 96
    static let leftControl: UInt16 = 29
    static let rightControl: UInt16 = 97
    static let leftShift: UInt16 = 42
    static let rightShift: UInt16 = 54
    static let leftAlt: UInt16 = 56
    /// AltGr on layouts that have a third level (`de`, `fr`).
    static let rightAlt: UInt16 = 100
    static let capsLock: UInt16 = 58
    static let numLock: UInt16 = 69
    static let scrollLock: UInt16 = 70
    static let leftMeta: UInt16 = 125
    static let rightMeta: UInt16 = 126
    /// The key right of P on a US keyboard (`]`).
    static let rightBrace: UInt16 = 27

    /// Keys that only change or lock the level of others: they never make a character nor an `unmapped_key`.
    static func isModifier(_ code: UInt16) -> Bool {
        switch code {
        case leftControl, rightControl, leftShift, rightShift, leftAlt, rightAlt, capsLock, numLock, scrollLock,
             leftMeta, rightMeta: true
        default: false
        }
    }

    static func isTerminator(_ code: UInt16) -> Bool {
        code == enter || code == keypadEnter || code == tab
    }
}
