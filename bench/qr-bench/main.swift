// The QRScanner decoder in the benchmark's reference-loop format (bench/qr/).
// usage: qr-bench [--still] REPEAT FRAME.pgm...
// --still: the decoder skips unchanged frames, and each frame is given REPEAT times (a still scene)
// Times are the thread's CPU time: the machine is shared, and waiting for the core is not decoding.
// prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated)
import Foundation
import QRScanner

func threadCPUMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
}

var arguments = Array(CommandLine.arguments.dropFirst())
let still = arguments.first == "--still"
if still { arguments.removeFirst() }
guard arguments.count >= 2, let repeatCount = Int(arguments[0]), repeatCount > 0 else {
    FileHandle.standardError.write(Data("usage: qr-bench [--still] REPEAT FRAME.pgm...\n".utf8))
    exit(2)
}
for path in arguments.dropFirst() {
    let decoder = QRFrameDecoder(skippingUnchangedFrames: still)
    guard let image = PortableGreyMap(path: path) else {
        FileHandle.standardError.write(Data("\(path): not a P5 PGM\n".utf8))
        exit(1)
    }
    var payloads: [[UInt8]] = []
    let start = threadCPUMilliseconds()
    image.pixels.withUnsafeBufferPointer { pixels in
        for _ in 0..<repeatCount {
            payloads = decoder.decode(luma: pixels, width: image.width, height: image.height)
        }
    }
    let milliseconds = threadCPUMilliseconds() - start
    let hex = payloads.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: ",")
    print("\(path)\t\(String(format: "%.4f", milliseconds / Double(repeatCount)))\t\(hex)")
}
