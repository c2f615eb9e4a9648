import Glibc
import JSONCore
import POSIXSupport

/// `watch --output DIR`: one station's events in `DIR/<station>.jsonl`, one line each as the daemon journaled it, in
/// seq order without gaps; seqs that are gone for good as `{"type":"gone","from":A,"to":B}`. Appended only, so a
/// back office can follow it with `tail -f`; a `watch` started again continues after its last line.
struct StationFile: Sendable {
    /// The longest line the daemon sends (StationConnection's limit), and its line end.
    static let longestLine = 1 << 20 + 1

    let path: String
    private let descriptor: Int32

    /// Opens (or makes) the file of the station at topic level `level`; the seq of its last line, or nil for a new file.
    static func open(directory: String, level: String) throws(Errno) -> (file: StationFile, last: UInt64?) {
        let path = directory + "/" + Topics.fileName(level: level) + ".jsonl"
        let descriptor = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard descriptor >= 0 else { throw .current }
        let info = try FileDescriptor.status(descriptor)
        let size = Int(info.st_size)
        let tail = min(size, longestLine + 1)
        var bytes = [UInt8](repeating: 0, count: tail)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, tail, off_t(size - tail)) }
        guard read == tail else { throw .current }
        let lines = bytes.split(separator: 0x0A)
        let last = lines.last.flatMap { line -> UInt64? in
            guard let json = try? JSON.parse(utf8: line) else { return nil }
            let seq = json["type"]?.stringValue == "gone" ? json["to"]?.integerValue : json["seq"]?.integerValue
            return seq.flatMap { $0 >= 0 ? UInt64($0) : nil }
        }
        return (StationFile(path: path, descriptor: descriptor), last)
    }

    func append(_ delivery: StationSequence.Delivery) throws(Errno) {
        switch delivery {
        case .event(_, let line):
            try FileDescriptor.writeAll(descriptor, (line + "\n").utf8)
        case .gone(let range):
            try FileDescriptor.writeAll(descriptor, "{\"type\":\"gone\",\"from\":\(range.lowerBound),\"to\":\(range.upperBound)}\n".utf8)
        }
    }
}
