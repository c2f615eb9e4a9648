import HandheldScanner
import Testing

@Suite struct LineSplitterTests {
    func split(_ chunks: [[UInt8]]) -> [LineSplitter.Output] {
        var splitter = LineSplitter()
        var outputs: [LineSplitter.Output] = []
        for chunk in chunks { chunk.withUnsafeBytes { splitter.append($0) { outputs.append($0) } } }
        return outputs
    }

    @Test func crLfAndCrlfEachEndOneLine() {
        let bytes = Array("one\rtwo\nthree\r\nfour\n\rfive\r".utf8)
        let expected: [LineSplitter.Output] = ["one", "two", "three", "four", "five"].map { .line(Array($0.utf8)) }
        #expect(split([bytes]) == expected)
        #expect(split(bytes.map { [$0] }) == expected, "a byte at a time, a CRLF split between reads")
    }

    @Test func everyOtherByteIsPassedOnExactly() {
        let line: [UInt8] = [0x00, 0x1D, 0x7F, 0xC3, 0xA9, 0xFF, 0x20, 0x09]
        #expect(split([line + [0x0D, 0x0A]]) == [.line(line)])
    }

    @Test func fourThousandNinetySixBytesPassAndOneMoreIsTooLong() {
        let longest = [UInt8](repeating: 0x41, count: 4096)
        #expect(split([longest + [0x0A]]) == [.line(longest)])
        let outputs = split([longest, [0x41, 0x42], [0x0D], [0x0A], Array("next\n".utf8)])
        #expect(outputs.count == 2)
        if case .failure(let failure) = outputs.first { #expect(failure.reason == .tooLong) } else { Issue.record("no too_long") }
        #expect(outputs.last == .line(Array("next".utf8)))
    }

    @Test(arguments: [("half", "4 bytes"), ("h", "1 byte")])
    func aLineCutShortByTheDeviceLeavingIsIncomplete(sent: String, said: String) {
        var splitter = LineSplitter()
        var outputs: [LineSplitter.Output] = []
        Array(sent.utf8).withUnsafeBytes { splitter.append($0) { outputs.append($0) } }
        splitter.end { outputs.append($0) }
        #expect(outputs == [.failure(ScannerReadFailure(.incomplete, "the scanner went away in the middle of a line, after \(said)"))])
    }
}

@Suite struct ScannerSpecTests {
    @Test func theTwoKindsParse() throws {
        #expect(try ScannerSpec(parsing: "evdev:/dev/input/by-id/usb-Zebra-event-kbd") == .evdev(path: "/dev/input/by-id/usb-Zebra-event-kbd"))
        #expect(try ScannerSpec(parsing: "serial:/dev/ttyACM0") == .serial(path: "/dev/ttyACM0", baud: 9600))
        #expect(try ScannerSpec(parsing: "serial:/dev/ttyACM0@115200") == .serial(path: "/dev/ttyACM0", baud: 115200))
        #expect(try ScannerSpec(parsing: "serial:/dev/ttyACM0@115200").id == "serial:/dev/ttyACM0")
    }

    @Test(arguments: ["usb:/dev/x", "evdev:", "evdev:relative", "serial:/dev/ttyACM0@9601", "serial:/dev/ttyACM0@", "serial:/dev/tty\u{1B}"])
    func badSpecsAreRefused(text: String) {
        #expect(throws: ScannerSpec.ParseError.self) { try ScannerSpec(parsing: text) }
    }
}
