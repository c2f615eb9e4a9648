import Foundation
import TestSupport

/// The benchmark's reference loops (bench/qr/zxing_loop.cpp, bench/qr/zbar_loop.c), built once per test run: what
/// zxing-cpp's and libzbar's own default calls read, from programs of their own, not through the decoder's code.
enum ReferenceLoops {
    private static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qrloops-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// zxing-cpp 1.4's `ReadBarcodes` with its default hints, QR codes only.
    static let zxingLoop: Result<String, any Error> = build("g++", "zxing_loop.cpp", ["-std=c++17"], library: "zxing")
    /// libzbar's `zbar_scan_image` with its default configuration.
    static let zbarLoop: Result<String, any Error> = build("gcc", "zbar_loop.c", [], library: "zbar")

    private static func build(_ compiler: String, _ source: String, _ options: [String], library: String) -> Result<String, any Error> {
        Result {
            let program = folder.appendingPathComponent(source.split(separator: ".")[0].description).path
            let flags = try runTool("/usr/bin/pkg-config", ["--cflags", "--libs", library]).split(whereSeparator: \.isWhitespace).map(String.init)
            let sourcePath = packageRoot.appendingPathComponent("bench/qr/\(source)").path
            try runTool("/usr/bin/\(compiler)", ["-O2", "-w"] + options + ["-o", program, sourcePath] + flags)
            return program
        }
    }

    /// What zxing-cpp's default call reads in each frame, by path.
    static func zxing(_ frames: [String]) throws -> [String: [[UInt8]]] {
        try read(zxingLoop.get(), [], frames)
    }

    /// What libzbar's default scan reads in each frame, by path. `binary`: the codes' own bytes (ZBAR_CFG_BINARY, the
    /// one setting changed), as the decoder gives them; otherwise zbar's UTF-8 text by its guess at the charset.
    static func zbar(_ frames: [String], binary: Bool) throws -> [String: [[UInt8]]] {
        try read(zbarLoop.get(), binary ? ["--binary"] : [], frames)
    }

    /// Runs a loop once over the frames, a few hundred at a time (the command line has a limit).
    private static func read(_ program: String, _ options: [String], _ frames: [String]) throws -> [String: [[UInt8]]] {
        var read: [String: [[UInt8]]] = [:]
        var start = 0
        while start < frames.count {
            let batch = Array(frames[start..<min(start + 200, frames.count)])
            for line in try runTool(program, options + ["1"] + batch).split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.count == 3 else { continue }
                read[String(fields[0])] = fields[2].split(separator: ",").map { Fixtures.bytes(hex: String($0)) }
            }
            start += batch.count
        }
        return read
    }
}
