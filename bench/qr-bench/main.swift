// The QRScanner decoder in the benchmark's reference-loop format (bench/qr/).
// usage: qr-bench [--still] REPEAT FRAME.pgm...
//        qr-bench --live STREAM.y4m...
// --still: the decoder skips unchanged frames, and each frame is given REPEAT times (a still scene)
// Times are the thread's CPU time: the machine is shared, and waiting for the core is not decoding.
// prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated)
// --live: each stream's frames in order through one decoder, as the daemon decodes a camera; prints,
// per stream: path, frames, share of one core at the stream's frame rate (reading the file included),
// and each payload in hex with the number of the first frame it was read in and the number of frames it was
// read in (hex@first#frames, comma separated)
import Foundation
import QRScanner

func threadCPUMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
}

func playLive(_ paths: [String]) {
    for path in paths {
        guard var stream = Y4MFile(path: path) else {
            FileHandle.standardError.write(Data("\(path): not a YUV4MPEG2 file\n".utf8))
            exit(1)
        }
        let decoder = QRFrameDecoder(skippingUnchangedFrames: true)
        var seenIn: [(payload: [UInt8], first: Int, frames: Int)] = []
        var frames = 0
        let start = threadCPUMilliseconds()
        while let luma = stream.nextLuma() {
            let payloads = luma.withUnsafeBufferPointer { decoder.decode(luma: $0, width: stream.width, height: stream.height) }
            for payload in payloads {
                if let index = seenIn.firstIndex(where: { $0.payload == payload }) {
                    seenIn[index].frames += 1
                } else {
                    seenIn.append((payload, frames, 1))
                }
            }
            frames += 1
        }
        let milliseconds = threadCPUMilliseconds() - start
        let share = milliseconds / (Double(frames) / stream.framesPerSecond * 1000)
        let seen = seenIn.map { $0.payload.map { String(format: "%02x", $0) }.joined() + "@\($0.first)#\($0.frames)" }.joined(separator: ",")
        print("\(path)\t\(frames)\t\(String(format: "%.4f", share))\t\(seen)")
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--live" {
    playLive(Array(arguments.dropFirst()))
    exit(0)
}
var passes: [QRFrameDecoder.Pass]?
if arguments.first == "--pass" {
    passes = arguments[1].split(separator: ",").map { QRFrameDecoder.Pass(rawValue: String($0))! }
    arguments.removeFirst(2)
}
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
            payloads = decoder.decode(luma: pixels, width: image.width, height: image.height, passes: passes)
        }
    }
    let milliseconds = threadCPUMilliseconds() - start
    let hex = payloads.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: ",")
    print("\(path)\t\(String(format: "%.4f", milliseconds / Double(repeatCount)))\t\(hex)")
}
