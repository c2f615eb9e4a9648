import HandheldScanner

// libFuzzer target: any byte stream as input_event records, through every keymap.
// What must hold: no trap, codes end only at a terminator and never exceed the limit, bytes in every code are
// characters the layout types (or the group separator).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeystrokes(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // The first byte picks the layout and how the stream is cut into reads.
    guard let first = bytes.first else { return 0 }
    let layout = KeymapLayout.allCases[Int(first) % KeymapLayout.allCases.count]
    let chunk = 1 + Int(first >> 2)
    var decoder = KeystrokeDecoder(keymap: Keymap(layout))
    var assembler = InputEventAssembler()
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        assembler.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { event in
            decoder.feed(event) { check($0) }
        }
        if offset % 3 == 0 { decoder.silence { check($0) } }
        offset = end
    }
    decoder.end { check($0) }
    precondition(!decoder.isPending)
    return 0
}

private func check(_ output: KeystrokeDecoder.Output) {
    if case .code(let code) = output {
        precondition(!code.isEmpty && code.unicodeScalars.count <= KeystrokeDecoder.characterLimit)
    }
}
