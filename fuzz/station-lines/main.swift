import JSONCore
@testable import StationClient
import StationWire

/// The daemon's lines as a StationClient reads them from the socket. The first two bytes choose a line limit and a
/// read size; the rest is the byte stream.
/// - The splitter hands on exactly the stream's lines (the runs before each newline), in order, however the stream
///   is cut into reads, until a line passes the limit; then it says so, and no line it handed on passes the limit.
/// - Each line decodes to a message only when it is a JSON object with a string `type`; the message keeps the line
///   as it came; a `seq` is 1 or more, a `replayed` 0 or more, an `id` the JSON's string or integer.
/// - A `hello` has a `last_seq` of 0 or more; a `not_available` detail's oldest seq is read from ASCII digits only.
/// - A command the client writes (`verify` with the line as `raw`) is one the daemon reads, with `raw` byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let limit = Int(data[0]) * 16
    let readSize = 1 + Int(data[1])
    let stream = UnsafeBufferPointer(start: data + 2, count: size - 2)

    var splitter = StationLineSplitter(maximumLineBytes: limit)
    var lines: [String] = []
    var tooLong = false
    var offset = 0
    while offset < stream.count, !tooLong {
        let end = min(offset + readSize, stream.count)
        let taken = splitter.append(stream[offset..<end])
        lines += taken.lines
        tooLong = taken.tooLong
        offset = end
    }
    // The same lines found the plain way.
    var expected: [String] = []
    var expectTooLong = false
    for run in stream.split(separator: 0x0A, omittingEmptySubsequences: false) {
        if run.count > limit { expectTooLong = true; break }
        let finished = run.endIndex < stream.endIndex
        if finished { expected.append(String(decoding: run, as: UTF8.self)) }
    }
    check(tooLong == expectTooLong, "too long: \(tooLong), expected \(expectTooLong), limit \(limit)")
    check(lines == expected, "the splitter's \(lines.count) lines differ from the stream's \(expected.count)")

    for line in lines + [String(decoding: stream, as: UTF8.self)] {
        checkMessage(line)
    }
    return 0
}

func checkMessage(_ line: String) {
    let json = try? JSON.parse(line)
    guard let message = StationLine(line: line) else {
        check(json?["type"]?.stringValue == nil, "a line with a string type refused: \(line.debugDescription)")
        return
    }
    check(message.line == line && message.type.name == json?["type"]?.stringValue, "the message changed the line")
    check(message.seq.map { $0 >= 1 } ?? true, "seq \(String(describing: message.seq))")
    check(message.replayed.map { $0 >= 0 } ?? true, "replayed \(String(describing: message.replayed))")
    if let id = message.id {
        check(id == json?["id"]?.stringValue || json?["id"]?.integerValue.map { String($0) } == id, "id \(id)")
    }
    if let hello = StationHello(message) {
        check(message.type == .hello && json?["last_seq"]?.integerValue == Int64(exactly: hello.lastSeq), "hello last_seq \(hello.lastSeq)")
    }
    if let detail = message.detail {
        let oldest = oldestKeptSeq(inDetail: detail)
        let after = detail.firstRange(of: "oldest kept is ").map { detail[$0.upperBound...].utf8.prefix { (0x30...0x39).contains($0) } }
        check(oldest == after.flatMap { UInt64(Substring($0)) }, "oldest kept \(String(describing: oldest)) from \(detail.debugDescription)")
    }
    let command = ClientCommand(id: .string(message.type.name), action: .verify(raw: line)).json.encoded()
    let read = try? ClientCommand.read(Array(command.utf8))
    guard case .verify(let raw)? = read?.action else { fatalError("the daemon cannot read \(command.debugDescription)") }
    check(Array(raw.utf8) == Array(line.utf8), "verify's raw changed on the way")
}
