import HandheldScanner

/// How a scanner's bytes become codes: key events through a keymap, or lines.
protocol CodeFraming {
    /// A code has started and not ended: the reader waits for the rest at most the gap limit.
    var isPending: Bool { get }
    mutating func consume(_ bytes: UnsafeRawBufferPointer, _ emit: (ScannerEvent) -> Void)
    /// Nothing came for longer than the gap limit.
    mutating func silence(_ emit: (ScannerEvent) -> Void)
    /// The device went away or the stream ended.
    mutating func end(_ emit: (ScannerEvent) -> Void)
}

/// A keyboard-wedge scanner's `input_event` records.
struct KeystrokeFraming: CodeFraming {
    private var assembler = InputEventAssembler()
    private var decoder: KeystrokeDecoder

    init(keymap: Keymap) {
        decoder = KeystrokeDecoder(keymap: keymap)
    }

    var isPending: Bool { decoder.isPending }

    mutating func consume(_ bytes: UnsafeRawBufferPointer, _ emit: (ScannerEvent) -> Void) {
        assembler.append(bytes) { event in decoder.feed(event) { emit($0.event) } }
    }

    mutating func silence(_ emit: (ScannerEvent) -> Void) {
        decoder.silence { emit($0.event) }
    }

    mutating func end(_ emit: (ScannerEvent) -> Void) {
        assembler.reset()
        decoder.end { emit($0.event) }
    }
}

/// A serial scanner's lines; a line that is not UTF-8 is refused rather than altered.
struct LineFraming: CodeFraming {
    private var splitter = LineSplitter()

    /// A serial line has no gap limit: a scanner sends it in one go, and only the device leaving cuts it short.
    var isPending: Bool { false }

    mutating func consume(_ bytes: UnsafeRawBufferPointer, _ emit: (ScannerEvent) -> Void) {
        splitter.append(bytes) { emit(Self.event(for: $0)) }
    }

    mutating func silence(_ emit: (ScannerEvent) -> Void) {}

    mutating func end(_ emit: (ScannerEvent) -> Void) {
        splitter.end { emit(Self.event(for: $0)) }
    }

    private static func event(for output: LineSplitter.Output) -> ScannerEvent {
        switch output {
        case .failure(let failure):
            return .failure(failure)
        case .line(let bytes):
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(ScannerReadFailure(.invalidUTF8, "a line of \(bytes.count) bytes that are not UTF-8"))
            }
            return .code(text)
        }
    }
}

extension KeystrokeDecoder.Output {
    var event: ScannerEvent {
        switch self {
        case .code(let code): .code(code)
        case .failure(let failure): .failure(failure)
        }
    }
}
