/// Cuts a serial scanner's bytes into codes at CR, LF or CRLF, passing every other byte on untouched.
public struct LineSplitter: Sendable {
    public enum Output: Sendable, Equatable {
        case line([UInt8])
        case failure(ScannerReadFailure)
    }

    public static let byteLimit = 4096

    private var line: [UInt8] = []
    private var overflowed = false
    /// A CR ended the last line: an LF right after it is the same line end, even in the next read.
    private var afterCarriageReturn = false

    public init() {
        line.reserveCapacity(Self.byteLimit)
    }

    /// True while a line has started and not ended.
    public var isPending: Bool { !line.isEmpty || overflowed }

    public mutating func append(_ bytes: UnsafeRawBufferPointer, _ emit: (Output) -> Void) {
        for byte in bytes {
            let followsCarriageReturn = afterCarriageReturn
            afterCarriageReturn = byte == 0x0D
            switch byte {
            case 0x0A where followsCarriageReturn:
                continue
            case 0x0A, 0x0D:
                if overflowed {
                    overflowed = false
                } else if !line.isEmpty {
                    emit(.line(line))
                }
                line.removeAll(keepingCapacity: true)
            default:
                if overflowed { continue }
                guard line.count < Self.byteLimit else {
                    emit(.failure(ScannerReadFailure(.tooLong, "the line runs past \(Self.byteLimit) bytes")))
                    overflowed = true
                    line.removeAll(keepingCapacity: true)
                    continue
                }
                line.append(byte)
            }
        }
    }

    /// The device went away: a line in progress is `incomplete`.
    public mutating func end(_ emit: (Output) -> Void) {
        if !line.isEmpty {
            emit(.failure(ScannerReadFailure(.incomplete, "the scanner went away in the middle of a line, after \(line.count == 1 ? "1 byte" : "\(line.count) bytes")")))
        }
        line.removeAll(keepingCapacity: true)
        overflowed = false
        afterCarriageReturn = false
    }
}
