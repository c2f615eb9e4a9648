import HandheldScanner
import Testing
import TestSupport

@Suite struct KeystrokeDecoderTests {
    @Test func tabEndsACodeAsEnterDoes() {
        var typist = KeyboardTypist(layout: .us)
        let events = typist.type("ABC", terminator: KeyboardTypist.tab) + typist.type("def")
        #expect(decode(events, layout: .us) == [.code("ABC"), .code("def")])
    }

    @Test func keyRepeatsAreIgnored() {
        var typist = KeyboardTypist(layout: .us)
        var events = typist.type("a", terminator: nil)
        events.insert(typist.event(type: InputEvent.key, code: 30, value: 2), at: 2)
        events += typist.type("b")
        #expect(decode(events, layout: .us) == [.code("ab")])
    }

    @Test func twoCodesFiveMillisecondsApartAreTwoCodes() {
        var typist = KeyboardTypist(layout: .us)
        var events = typist.type("first")
        typist.wait(microseconds: 5_000)
        events += typist.type("second")
        #expect(decode(events, layout: .us) == [.code("first"), .code("second")])
    }

    @Test func aGapOfMoreThanAHundredMillisecondsOnTheEventsClockLeavesTheCodeIncomplete() {
        var typist = KeyboardTypist(layout: .us)
        var events = typist.type("abc", terminator: nil)
        typist.wait(microseconds: 101_000)
        events += typist.type("xyz")
        #expect(decode(events, layout: .us).map(\.reason) == [.incomplete, nil])
        #expect(decode(events, layout: .us).last == .code("xyz"))

        var patient = KeyboardTypist(layout: .us, keyInterval: 99_000)
        #expect(decode(patient.type("slow"), layout: .us) == [.code("slow")], "99 ms between keys is still one code")
    }

    @Test func silenceAfterAPartialCodeIsIncompleteAndNothingElse() {
        var typist = KeyboardTypist(layout: .us)
        let outputs = decode(typist.type("https://seal", terminator: nil), layout: .us, thenSilence: true)
        #expect(outputs.map(\.reason) == [.incomplete])
        #expect(decode(typist.type("", terminator: nil), layout: .us, thenSilence: true).isEmpty, "no code, nothing to say")
    }

    @Test func lostEventsInTheMiddleOfACodeMakeItIncompleteAndTheNextCodeReadsWhole() {
        var typist = KeyboardTypist(layout: .us)
        var events = typist.type("https://sea", terminator: nil)
        events.append(typist.event(type: InputEvent.synchronisation, code: InputEvent.dropped, value: 0))
        // Partial events before the next SYN_REPORT are skipped; a Shift held when the drop came is let go.
        events.append(typist.event(type: InputEvent.key, code: 42, value: 1))
        events.append(typist.event(type: InputEvent.synchronisation, code: InputEvent.report, value: 0))
        events += typist.type("ltrust.io/p/X")
        events += typist.type("next")
        #expect(decode(events, layout: .us).map(\.reason) == [.incomplete, nil])
        #expect(decode(events, layout: .us).last == .code("next"))
    }

    @Test func lostEventsBeforeACodeStartedMakeItsTailIncomplete() {
        var typist = KeyboardTypist(layout: .us)
        var events = [typist.event(type: InputEvent.synchronisation, code: InputEvent.dropped, value: 0),
                      typist.event(type: InputEvent.synchronisation, code: InputEvent.report, value: 0)]
        events += typist.type("tail")
        #expect(decode(events, layout: .us).map(\.reason) == [.incomplete])
    }

    @Test func anUnmappedKeyIsSaidOnceAndTheRestOfItsCodeIsDropped() {
        var typist = KeyboardTypist(layout: .us)
        var events = typist.type("ab", terminator: nil)
        events += typist.key(.init(code: 1))  // Esc
        events += typist.type("cd")
        events += typist.type("ok")
        let outputs = decode(events, layout: .us)
        #expect(outputs.map(\.reason) == [.unmappedKey, nil])
        #expect(outputs.last == .code("ok"))
    }

    @Test func fourThousandNinetySixCharactersPassAndOneMoreIsTooLong() {
        var typist = KeyboardTypist(layout: .us, keyInterval: 500)
        let longest = String(repeating: "0123456789abcdef", count: 256)
        #expect(decode(typist.type(longest), layout: .us) == [.code(longest)])
        let outputs = decode(typist.type(longest + "x") + typist.type("after"), layout: .us)
        #expect(outputs.map(\.reason) == [.tooLong, nil])
        #expect(outputs.last == .code("after"))
    }

    @Test func theDeviceGoingAwayMidCodeIsIncomplete() {
        var typist = KeyboardTypist(layout: .us)
        var decoder = KeystrokeDecoder(keymap: Keymap(.us))
        var outputs: [KeystrokeDecoder.Output] = []
        for event in typist.type("ab", terminator: nil) { decoder.feed(event) { outputs.append($0) } }
        #expect(decoder.isPending)
        decoder.end { outputs.append($0) }
        #expect(outputs.map(\.reason) == [.incomplete])
        #expect(!decoder.isPending)
    }

    @Test func aCodeCutOffAfterOneCharacterSaysOneCharacter() {
        var typist = KeyboardTypist(layout: .us)
        let silenced = decode(typist.type("h", terminator: nil), layout: .us, thenSilence: true)
        #expect(silenced == [.failure(ScannerReadFailure(.incomplete, "the code stopped after 1 character without Enter or Tab"))])
        var decoder = KeystrokeDecoder(keymap: Keymap(.us))
        var outputs: [KeystrokeDecoder.Output] = []
        for event in typist.type("h", terminator: nil) { decoder.feed(event) { outputs.append($0) } }
        decoder.end { outputs.append($0) }
        #expect(outputs == [.failure(ScannerReadFailure(.incomplete, "the scanner went away in the middle of a code, after 1 character"))])
    }
}
