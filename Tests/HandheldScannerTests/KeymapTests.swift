import HandheldScanner
import Testing
import TestSupport

/// Keys spelled out by hand, not found through the decoder: the layouts are checked against xkb, not themselves.
@Suite struct KeymapTests {
    typealias Stroke = KeyboardTypist.Stroke

    func typed(_ strokes: [Stroke], layout: KeymapLayout) -> [KeystrokeDecoder.Output] {
        var typist = KeyboardTypist(layout: layout)
        let events = strokes.flatMap { typist.key($0) } + typist.key(Stroke(code: KeyboardTypist.enter))
        return decode(events, layout: layout)
    }

    @Test(arguments: [
        // h t t p s : / / a @ b . c
        (KeymapLayout.us, [Stroke(code: 35), Stroke(code: 20), Stroke(code: 20), Stroke(code: 25), Stroke(code: 31),
                           Stroke(code: 39, shift: true), Stroke(code: 53), Stroke(code: 53), Stroke(code: 30),
                           Stroke(code: 3, shift: true), Stroke(code: 48), Stroke(code: 52), Stroke(code: 46)]),
        (KeymapLayout.de, [Stroke(code: 35), Stroke(code: 20), Stroke(code: 20), Stroke(code: 25), Stroke(code: 31),
                           Stroke(code: 52, shift: true), Stroke(code: 8, shift: true), Stroke(code: 8, shift: true),
                           Stroke(code: 30), Stroke(code: 16, altGr: true), Stroke(code: 48), Stroke(code: 52), Stroke(code: 46)]),
        (KeymapLayout.fr, [Stroke(code: 35), Stroke(code: 20), Stroke(code: 20), Stroke(code: 25), Stroke(code: 31),
                           Stroke(code: 52), Stroke(code: 52, shift: true), Stroke(code: 52, shift: true),
                           Stroke(code: 16), Stroke(code: 11, altGr: true), Stroke(code: 48), Stroke(code: 51, shift: true),
                           Stroke(code: 46)]),
    ])
    func colonSlashAndAtAreWhereEachLayoutPutsThem(layout: KeymapLayout, strokes: [Stroke]) {
        #expect(typed(strokes, layout: layout) == [.code("https://a@b.c")])
    }

    @Test func qwertzAndAzertyMoveTheLetters() {
        // The keys labelled Z, Y, A, Q, W, M on a US keyboard.
        let keys: [UInt16] = [44, 21, 30, 16, 17, 39]
        #expect(typed(keys.map { Stroke(code: $0) }, layout: .us) == [.code("zyaqw;")])
        #expect(typed(keys.map { Stroke(code: $0) }, layout: .de) == [.code("yzaqwö")])
        #expect(typed(keys.map { Stroke(code: $0) }, layout: .fr) == [.code("wyqazm")])
    }

    @Test func digitsNeedShiftOnAzertyOnly() {
        #expect(typed([Stroke(code: 2), Stroke(code: 3)], layout: .fr) == [.code("&é")])
        #expect(typed([Stroke(code: 2, shift: true), Stroke(code: 3, shift: true)], layout: .fr) == [.code("12")])
        #expect(typed([Stroke(code: 2), Stroke(code: 3)], layout: .de) == [.code("12")])
    }

    @Test(arguments: KeymapLayout.allCases)
    func theKeypadTypesDigitsInEveryLayout(layout: KeymapLayout) {
        let keypad: [UInt16] = [82, 79, 80, 81, 75, 76, 77, 71, 72, 73, 74, 78, 55, 98]
        #expect(typed(keypad.map { Stroke(code: $0) }, layout: layout) == [.code("0123456789-+*/")])
    }

    @Test func capsLockRaisesLettersOnlyAndShiftLowersThemAgain() {
        var typist = KeyboardTypist(layout: .de)
        var events = typist.key(Stroke(code: 58))  // Caps Lock on
        events += typist.type("ab1ü", terminator: nil)
        events += typist.key(Stroke(code: 30, shift: true))
        events += typist.key(Stroke(code: 58))  // Caps Lock off
        events += typist.type("c")
        #expect(decode(events, layout: .de) == [.code("AB1Üac")])
    }

    @Test(arguments: KeymapLayout.allCases)
    func controlRightBraceIsTheGroupSeparatorByte(layout: KeymapLayout) {
        let outputs = typed([Stroke(code: 2, shift: layout == .fr), Stroke(code: 27, control: true), Stroke(code: 3, shift: layout == .fr)], layout: layout)
        #expect(outputs == [.code("1\u{1D}2")])
    }

    @Test func controlWithTheLayoutsOwnRightBracketIsTheGroupSeparatorToo() {
        // German ] is AltGr+9.
        #expect(typed([Stroke(code: 10, altGr: true, control: true)], layout: .de) == [.code("\u{1D}")])
    }

    @Test func keysWithNoCharacterAreUnmapped() {
        #expect(typed([Stroke(code: 30), Stroke(code: 1)], layout: .us).map(\.reason) == [.unmappedKey])  // Esc
        #expect(typed([Stroke(code: 30), Stroke(code: 14)], layout: .us).map(\.reason) == [.unmappedKey])  // Backspace
        #expect(typed([Stroke(code: 16, altGr: true)], layout: .us).map(\.reason) == [.unmappedKey])  // no AltGr in us
        #expect(typed([Stroke(code: 20, control: true)], layout: .us) == [.code("\u{14}")])
        #expect(typed([Stroke(code: 2, control: true)], layout: .us).map(\.reason) == [.unmappedKey])
    }

    @Test(arguments: KeymapLayout.allCases)
    func aTypedURLComesBackWhole(layout: KeymapLayout) {
        let url = "https://id.sealtrust.io/01/03701234567890/21/SN-00042?17=261231&x=a_b~c%20"
        var typist = KeyboardTypist(layout: layout)
        #expect(decode(typist.type(url), layout: layout) == [.code(url)])
    }
}
