import HandheldScanner

// libFuzzer target: any byte stream through the serial line splitter, cut into reads of every size.
// What must hold: no trap; the lines are exactly the input's runs between line ends (no byte added, changed,
// dropped or reordered), however the input is cut into reads.

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
    // The same lines found the plain way: runs between CR and LF bytes, empty runs and runs over the limit
    // left out, and the last run only when a line end follows it.
    let input = bytes.dropFirst()
    var expected = input.split(omittingEmptySubsequences: true) { $0 == 0x0A || $0 == 0x0D }.map(Array.init)
    if let last = input.last, last != 0x0A, last != 0x0D, !expected.isEmpty { expected.removeLast() }
    expected.removeAll { $0.count > LineSplitter.byteLimit }
    precondition(lines == expected, "the splitter's lines differ from the input's")
    return 0
}
