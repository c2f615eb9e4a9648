import HandheldScanner

// libFuzzer target: any byte stream as input_event records, through every keymap.
// What must hold: no trap; every code is non-empty and within the limit; nothing is left pending at the end.

/// Built once: a keymap's tables are not what is being fuzzed.
private let keymaps = KeymapLayout.allCases.map(Keymap.init)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeystrokes(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // The first byte picks the layout and how the stream is cut into reads.
    guard let first = bytes.first else { return 0 }
    let chunk = 1 + Int(first >> 2)
    var decoder = KeystrokeDecoder(keymap: keymaps[Int(first) % keymaps.count])
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
