import HandheldScanner

/// Types text as a keyboard-wedge scanner would, in a layout: the `input_event` records of each key,
/// with the modifiers it needs, on the events' own clock.
public struct KeyboardTypist {
    public struct Stroke: Hashable, Sendable {
        public let code: UInt16
        public let shift: Bool
        public let altGr: Bool
        public let control: Bool

        public init(code: UInt16, shift: Bool = false, altGr: Bool = false, control: Bool = false) {
            self.code = code
            self.shift = shift
            self.altGr = altGr
            self.control = control
        }
    }

    public static let enter: UInt16 = 28
    public static let tab: UInt16 = 15
    static let leftShift: UInt16 = 42
    static let rightAlt: UInt16 = 100
    static let leftControl: UInt16 = 29

    public let layout: KeymapLayout
    /// Microseconds between one key's press and the next's.
    public let keyInterval: Int64
    public private(set) var time: Int64
    private let strokes: [Unicode.Scalar: Stroke]

    /// `time`: where the clock starts, in microseconds.
    public init(layout: KeymapLayout, keyInterval: Int64 = 1_000, time: Int64 = 1_764_590_400_000_000) {
        self.layout = layout
        self.keyInterval = keyInterval
        self.time = time
        strokes = Self.reverse(layout)
    }

    /// Which key the decoder itself reads as each character, found by asking it (plain, Shift, AltGr, Ctrl).
    private static func reverse(_ layout: KeymapLayout) -> [Unicode.Scalar: Stroke] {
        var found: [Unicode.Scalar: Stroke] = [:]
        let keymap = Keymap(layout)
        let candidates = (1...127).flatMap { code -> [Stroke] in
                let code = UInt16(code)
                return [Stroke(code: code), Stroke(code: code, shift: true), Stroke(code: code, altGr: true),
                        Stroke(code: code, control: true)]
            }
        for stroke in candidates where stroke.code != enter && stroke.code != tab {
            var decoder = KeystrokeDecoder(keymap: keymap)
            var outputs: [KeystrokeDecoder.Output] = []
            var events = Self.events(for: stroke, at: 0, interval: 10)
            events.append(contentsOf: Self.press(enter, at: 1_000))
            for event in events { decoder.feed(event) { outputs.append($0) } }
            guard outputs.count == 1, case .code(let text) = outputs[0], text.unicodeScalars.count == 1,
                  let scalar = text.unicodeScalars.first, found[scalar] == nil else { continue }
            found[scalar] = stroke
        }
        return found
    }

    public func stroke(for character: Unicode.Scalar) -> Stroke? { strokes[character] }

    /// The records for `text`, then `terminator` (a key code; nil for none).
    public mutating func type(_ text: String, terminator: UInt16? = enter) -> [InputEvent] {
        var events: [InputEvent] = []
        for scalar in text.unicodeScalars {
            guard let stroke = strokes[scalar] else { preconditionFailure("no key types U+\(String(scalar.value, radix: 16)) in \(layout)") }
            events += key(stroke)
        }
        if let terminator { events += key(Stroke(code: terminator)) }
        return events
    }

    /// One key with its modifiers, pressed and released, each change followed by SYN_REPORT.
    public mutating func key(_ stroke: Stroke) -> [InputEvent] {
        defer { time += keyInterval }
        return Self.events(for: stroke, at: time, interval: keyInterval / 8)
    }

    public mutating func wait(microseconds: Int64) { time += microseconds }

    /// An event of the kernel's own with the current time (SYN_DROPPED, a lone modifier).
    public func event(type: UInt16, code: UInt16, value: Int32) -> InputEvent {
        InputEvent(time: time, type: type, code: code, value: value)
    }

    private static func events(for stroke: Stroke, at start: Int64, interval: Int64) -> [InputEvent] {
        let modifiers = [(stroke.control, leftControl), (stroke.altGr, rightAlt), (stroke.shift, leftShift)].filter(\.0).map(\.1)
        var events: [InputEvent] = []
        var time = start
        func change(_ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: InputEvent.key, code: code, value: value))
            events.append(InputEvent(time: time, type: InputEvent.synchronisation, code: InputEvent.report, value: 0))
            time += max(interval, 1)
        }
        for modifier in modifiers { change(modifier, 1) }
        change(stroke.code, 1)
        change(stroke.code, 0)
        for modifier in modifiers.reversed() { change(modifier, 0) }
        return events
    }

    private static func press(_ code: UInt16, at time: Int64) -> [InputEvent] {
        [InputEvent(time: time, type: InputEvent.key, code: code, value: 1),
         InputEvent(time: time + 1, type: InputEvent.key, code: code, value: 0)]
    }
}

extension [InputEvent] {
    /// The records as the kernel writes them to a reader.
    public var records: [UInt8] { flatMap(\.record) }
}
