/// Key codes to characters for one layout, as xkb's `us`, `de(nodeadkeys)` and `fr(nodeadkeys)` type them:
/// a scanner sends keys one at a time, so a dead key gives its own character rather than waiting for the next.
public struct Keymap: Sendable {
    struct Levels: Sendable {
        var plain: Unicode.Scalar?
        var shifted: Unicode.Scalar?
        var altGr: Unicode.Scalar?
        /// Caps Lock swaps the first two levels only on letters, as xkb's ALPHABETIC key type does.
        var isLetter = false
    }

    public let layout: KeymapLayout
    private let levels: [Levels]

    public init(_ layout: KeymapLayout) {
        self.layout = layout
        var table = [Levels](repeating: Levels(), count: 128)
        let rows: [(first: Int, plain: String, shifted: String)]
        let altGr: [Int: Unicode.Scalar]
        let keypadDecimal: Unicode.Scalar
        switch layout {
        case .us:
            rows = [
                (2, "1234567890-=", "!@#$%^&*()_+"),
                (16, "qwertyuiop[]", "QWERTYUIOP{}"),
                (30, "asdfghjkl;'`", "ASDFGHJKL:\"~"),
                (43, "\\zxcvbnm,./", "|ZXCVBNM<>?"),
            ]
            altGr = [:]
            keypadDecimal = "."
        case .de:
            rows = [
                (2, "1234567890ß´", "!\"§$%&/()=?`"),
                (16, "qwertzuiopü+", "QWERTZUIOPÜ*"),
                (30, "asdfghjklöä^", "ASDFGHJKLÖÄ°"),
                (43, "#yxcvbnm,.-", "'YXCVBNM;:_"),
            ]
            altGr = [2: "¹", 3: "²", 4: "³", 5: "¼", 6: "½", 7: "¬", 8: "{", 9: "[", 10: "]", 11: "}", 12: "\\",
                     16: "@", 18: "€", 27: "~", 50: "µ", 86: "|"]
            keypadDecimal = ","
        case .fr:
            rows = [
                (2, "&é\"'(-è_çà)=", "1234567890°+"),
                (16, "azertyuiop^$", "AZERTYUIOP¨£"),
                (30, "qsdfghjklmù²", "QSDFGHJKLM%\u{0}"),
                (43, "*wxcvbn,;:!", "µWXCVBN?./§"),
            ]
            altGr = [3: "~", 4: "#", 5: "{", 6: "[", 7: "|", 8: "`", 9: "\\", 10: "^", 11: "@", 12: "]", 13: "}",
                     18: "€", 27: "¤"]
            keypadDecimal = "."
        }
        for row in rows {
            for (offset, (plain, shifted)) in zip(row.plain.unicodeScalars, row.shifted.unicodeScalars).enumerated() {
                let isLetter = plain.properties.isLowercase && shifted.properties.isUppercase
                table[row.first + offset] = Levels(plain: plain, shifted: shifted == "\u{0}" ? nil : shifted, isLetter: isLetter)
            }
        }
        table[57] = Levels(plain: " ", shifted: " ")
        table[86] = Levels(plain: "<", shifted: ">")
        for (code, character) in altGr { table[code].altGr = character }
        // The keypad types digits whatever Num Lock says: a scanner that sends keypad keys means digits.
        let keypad: [(Int, Unicode.Scalar)] = [
            (71, "7"), (72, "8"), (73, "9"), (74, "-"), (75, "4"), (76, "5"), (77, "6"), (78, "+"), (79, "1"),
            (80, "2"), (81, "3"), (82, "0"), (83, keypadDecimal), (55, "*"), (98, "/"), (117, "="), (121, ","),
        ]
        for (code, character) in keypad { table[code] = Levels(plain: character, shifted: character) }
        levels = table
    }

    /// The character `code` types with these modifiers, or nil when the layout has none.
    func character(for code: UInt16, with modifiers: Modifiers) -> Unicode.Scalar? {
        guard Int(code) < levels.count, !modifiers.alt else { return nil }
        let key = levels[Int(code)]
        let base: Unicode.Scalar?
        if modifiers.altGr {
            base = modifiers.shift ? nil : key.altGr
        } else {
            base = modifiers.shift != (modifiers.capsLock && key.isLetter) ? key.shifted : key.plain
        }
        guard modifiers.control else { return base }
        // FNC1 (GS, 0x1D) comes as Ctrl+]; scanners send it by the US key position whatever their layout.
        if code == KeyCode.rightBrace && !modifiers.shift && !modifiers.altGr { return "\u{1D}" }
        // Otherwise Ctrl makes a control character of @, A–Z, [, \, ], ^, _ (either case), as xkb does.
        guard let base, (0x40...0x5F).contains(base.value) || (0x61...0x7A).contains(base.value) else { return nil }
        return Unicode.Scalar(UInt8(base.value & 0x1F))
    }
}
