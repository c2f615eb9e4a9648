import HandheldScanner
import TestSupport

/// Everything a decoder says for these events, then for silence.
func decode(_ events: [InputEvent], layout: KeymapLayout, thenSilence: Bool = false) -> [KeystrokeDecoder.Output] {
    var decoder = KeystrokeDecoder(keymap: Keymap(layout))
    var outputs: [KeystrokeDecoder.Output] = []
    for event in events { decoder.feed(event) { outputs.append($0) } }
    if thenSilence { decoder.silence { outputs.append($0) } }
    return outputs
}

extension KeystrokeDecoder.Output {
    var reason: ScannerReadFailure.Reason? {
        if case .failure(let failure) = self { failure.reason } else { nil }
    }
}
