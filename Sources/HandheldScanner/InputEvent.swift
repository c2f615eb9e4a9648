/// One kernel `struct input_event` as x86_64 lays it out: a 16-byte `timeval`, then type, code and value.
public struct InputEvent: Sendable, Equatable {
    /// The record's size on x86_64 (and every 64-bit Linux): two 8-byte time fields, 2 + 2 + 4 bytes.
    public static let size = 24

    public static let synchronisation: UInt16 = 0  // EV_SYN
    public static let key: UInt16 = 1  // EV_KEY
    public static let report: UInt16 = 0  // SYN_REPORT
    public static let dropped: UInt16 = 3  // SYN_DROPPED

    /// The seconds a record may carry and still be added up in microseconds without overflow.
    static let secondsRange: ClosedRange<Int64> = 0...4_000_000_000_000

    /// Microseconds on the event's own clock (`tv_sec` and `tv_usec`, each clamped to its range).
    public var time: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// Decodes the first `size` bytes of `record`, little-endian as the kernel writes them.
    public init(record: UnsafeRawBufferPointer) {
        precondition(record.count >= Self.size)
        let seconds = Int64(littleEndian: record.loadUnaligned(fromByteOffset: 0, as: Int64.self))
        let microseconds = Int64(littleEndian: record.loadUnaligned(fromByteOffset: 8, as: Int64.self))
        time = seconds.clamped(to: Self.secondsRange) * 1_000_000 + microseconds.clamped(to: 0...999_999)
        type = UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
        code = UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 18, as: UInt16.self))
        value = Int32(littleEndian: record.loadUnaligned(fromByteOffset: 20, as: Int32.self))
    }

    /// The record as the kernel would write it: for generated streams (tests, benchmarks, fuzzing seeds).
    public var record: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(time / 1_000_000)
        append(time % 1_000_000)
        append(type)
        append(code)
        append(value)
        return bytes
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
