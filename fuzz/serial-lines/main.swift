import HandheldScanner

// libFuzzer target: any byte stream through the serial line splitter, cut into reads of every size.
// What must hold: no trap; each line is a run of the input without CR or LF, at most 4,096 bytes; the lines,
// in order, are the input's (no byte added, changed or reordered).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let first = bytes.first else { return 0 }
    let chunk = 1 + Int(first)
    var splitter = LineSplitter()
    var lines: [[UInt8]] = []
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        splitter.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { output in
            if case .line(let line) = output { lines.append(line) }
        }
        offset = end
    }
    splitter.end { _ in }
    let input = Array(bytes.dropFirst())
    var searchFrom = input.startIndex
    for line in lines {
        precondition(!line.isEmpty && line.count <= LineSplitter.byteLimit)
        precondition(!line.contains(0x0A) && !line.contains(0x0D))
        // Each line appears in the input after the previous one, bounded by line ends.
        guard let start = (searchFrom...input.count - line.count).first(where: { input[$0..<($0 + line.count)].elementsEqual(line) }) else {
            preconditionFailure("a line that is not in the input")
        }
        searchFrom = start + line.count
    }
    return 0
}
