/// The daemon's byte stream cut into lines at each newline, however it arrives in reads: apart from the socket,
/// so fuzz/station-lines can drive it.
struct StationLineSplitter {
    /// The longest line taken, without its newline.
    let maximumLineBytes: Int
    private var buffer: [UInt8] = []
    /// How much of `buffer` was already searched for a newline, so a long line is not searched again at every read.
    private var scanned = 0

    init(maximumLineBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// The lines `bytes` completes, in order; `tooLong` once a line, finished or not, passed `maximumLineBytes`
    /// (the lines before it are still handed on; nothing after it is).
    mutating func append(_ bytes: some Collection<UInt8>) -> (lines: [String], tooLong: Bool) {
        buffer.append(contentsOf: bytes)
        var lines: [String] = []
        var start = 0
        defer {
            buffer.removeFirst(start)
            scanned = buffer.count
        }
        while let newline = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
            scanned = 0
            guard newline - start <= maximumLineBytes else { return (lines, true) }
            lines.append(String(decoding: buffer[start..<newline], as: UTF8.self))
            start = newline + 1
        }
        return (lines, buffer.count - start > maximumLineBytes)
    }
}
