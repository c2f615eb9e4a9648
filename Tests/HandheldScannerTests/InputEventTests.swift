import HandheldScanner
import Testing

@Suite struct InputEventTests {
    @Test func aRecordDecodesAsTheKernelLaysItOut() {
        // tv_sec 1764590400, tv_usec 123456, EV_KEY, KEY_A, pressed.
        var bytes: [UInt8] = []
        bytes += withUnsafeBytes(of: Int64(1_764_590_400).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: Int64(123_456).littleEndian, Array.init)
        bytes += [0x01, 0x00, 0x1E, 0x00, 0x01, 0x00, 0x00, 0x00]
        let event = bytes.withUnsafeBytes { InputEvent(record: $0) }
        #expect(event == InputEvent(time: 1_764_590_400_123_456, type: 1, code: 30, value: 1))
        #expect(event.record == bytes)
    }

    @Test func outOfRangeTimesAreClampedNotTrappedOn() {
        var bytes = [UInt8](repeating: 0xFF, count: 16) + [UInt8](repeating: 0, count: 8)
        let negative = bytes.withUnsafeBytes { InputEvent(record: $0) }
        #expect(negative.time == 0)
        bytes.replaceSubrange(0..<16, with: withUnsafeBytes(of: Int64.max.littleEndian, Array.init) + withUnsafeBytes(of: Int64.max.littleEndian, Array.init))
        let huge = bytes.withUnsafeBytes { InputEvent(record: $0) }
        #expect(huge.time == 4_000_000_000_000 * 1_000_000 + 999_999)
    }

    @Test func recordsSplitAcrossReadsAreReassembled() {
        let events = (0..<5).map { InputEvent(time: Int64($0) * 1000, type: 1, code: UInt16(30 + $0), value: 1) }
        let bytes = events.flatMap(\.record)
        for chunk in [1, 5, 23, 24, 25, 47, 120] {
            var assembler = InputEventAssembler()
            var seen: [InputEvent] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunk, bytes.count)
                bytes[offset..<end].withUnsafeBytes { assembler.append($0) { seen.append($0) } }
                offset = end
            }
            #expect(seen == events, "chunks of \(chunk) bytes")
            #expect(assembler.pendingByteCount == 0)
        }
    }
}
