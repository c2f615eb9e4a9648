import Glibc
import POSIXSupport

/// Buffered reads from a descriptor that wait with poll(2), so a stop is seen
/// within a fraction of a second even when the writer is silent.
struct DescriptorReader {
    enum Failure: Error {
        case stopped
        case system(SystemCallError)
    }

    enum Line {
        case line([UInt8])
        /// The stream ended; `partial` bytes came before the end.
        case end(partial: Int)
        case tooLong
    }

    let descriptor: Int32
    let shouldStop: () -> Bool
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    init(descriptor: Int32, shouldStop: @escaping () -> Bool) {
        self.descriptor = descriptor
        self.shouldStop = shouldStop
    }

    /// Reads up to and without the next newline.
    mutating func readLine(limit: Int) throws -> Line {
        var line: [UInt8] = []
        while true {
            if start == end, try refill() == 0 {
                return .end(partial: line.count)
            }
            if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                line.append(contentsOf: buffer[start..<newline])
                start = newline + 1
                return line.count > limit ? .tooLong : .line(line)
            }
            line.append(contentsOf: buffer[start..<end])
            start = end
            if line.count > limit { return .tooLong }
        }
    }

    /// Fills `destination` (from its start); returns how many bytes came before the end of the stream.
    mutating func read(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < destination.count {
            if start == end {
                if destination.count - filled >= buffer.count {
                    let count = try Self.readSome(descriptor, shouldStop, into: UnsafeMutableRawBufferPointer(rebasing: destination[filled...]))
                    if count == 0 { return filled }
                    filled += count
                    continue
                }
                if try refill() == 0 { return filled }
            }
            let count = min(end - start, destination.count - filled)
            buffer.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: destination[filled..<(filled + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + count)]))
            }
            start += count
            filled += count
        }
        return filled
    }

    private mutating func refill() throws -> Int {
        start = 0
        end = 0
        let descriptor = descriptor, shouldStop = shouldStop
        let count = try buffer.withUnsafeMutableBytes { bytes in try Self.readSome(descriptor, shouldStop, into: bytes) }
        end = count
        return count
    }

    /// One read(2) once poll(2) says there is something (data or the end); 0 is the end of the stream.
    private static func readSome(_ descriptor: Int32, _ shouldStop: () -> Bool, into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            if shouldStop() { throw Failure.stopped }
            let ready: Int16
            do throws(Errno) {
                ready = try Poll.wait(on: descriptor, for: Int16(POLLIN), until: .now + .milliseconds(200))
            } catch {
                throw Failure.system(SystemCallError("poll", errno: error))
            }
            if ready == 0 { continue }
            let count = Glibc.read(descriptor, destination.baseAddress, destination.count)
            if count >= 0 { return count }
            if errno == EAGAIN || errno == EINTR { continue }
            throw Failure.system(SystemCallError("read"))
        }
    }
}
