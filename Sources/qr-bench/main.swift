// The QRScanner decoder in the benchmark's reference-loop format (bench/qr/).
// usage: qr-bench REPEAT FRAME.pgm...
// prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated)
import Foundation
import QRScanner

let arguments = CommandLine.arguments
guard arguments.count >= 3, let repeatCount = Int(arguments[1]), repeatCount > 0 else {
    FileHandle.standardError.write(Data("usage: qr-bench REPEAT FRAME.pgm...\n".utf8))
    exit(2)
}
let decoder = QRFrameDecoder()
for path in arguments.dropFirst(2) {
    guard let image = PortableGreyMap(path: path) else {
        FileHandle.standardError.write(Data("\(path): not a P5 PGM\n".utf8))
        exit(1)
    }
    var payloads: [[UInt8]] = []
    let clock = ContinuousClock()
    let elapsed = image.pixels.withUnsafeBufferPointer { pixels in
        clock.measure {
            for _ in 0..<repeatCount {
                payloads = decoder.decode(luma: pixels, width: image.width, height: image.height)
            }
        }
    }
    let milliseconds = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    let hex = payloads.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: ",")
    print("\(path)\t\(String(format: "%.4f", milliseconds / Double(repeatCount)))\t\(hex)")
}
