import Foundation
import TestSupport

/// The fixtures, generated once per test run by tools/qrfixtures into a temporary directory.
enum Fixtures {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qrfixtures-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        run("/usr/bin/python3", [packageRoot.appendingPathComponent("tools/qrfixtures/qrfixtures.py").path, directory.path, "all"])
        return directory
    }()

    static func stream(_ name: String) -> String {
        directory.appendingPathComponent("streams/\(name).y4m").path
    }

    /// What the generator says each stream shows.
    struct StreamEntry: Decodable, Sendable {
        let payload: String?
        let payloads: [String]?
    }

    static let streamManifest: [String: StreamEntry] = {
        let data = (try? Data(contentsOf: directory.appendingPathComponent("streams/manifest.json"))) ?? Data()
        return (try? JSONDecoder().decode([String: StreamEntry].self, from: data)) ?? [:]
    }()

    static func payload(of stream: String) -> String {
        streamManifest[stream]?.payload ?? "<missing from the manifest>"
    }

    /// The robustness set: each image with the payload it shows.
    static let robustness: [(image: URL, expected: [UInt8], description: String)] = {
        let folder = directory.appendingPathComponent("robustness")
        let manifest = (try? String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        return manifest.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (folder.appendingPathComponent(fields[0]), bytes(hex: fields[1]), fields[2])
        }
    }()

    /// A sample of the realistic set (tools/qrfixtures/realistic.py), three frames a category: mild,
    /// middling, severe: each image with the payload it shows and its category.
    static let realisticSample: [(image: URL, expected: [UInt8], category: String)] = {
        // A folder of its own: the other fixtures need not be generated first.
        let sample = FileManager.default.temporaryDirectory.appendingPathComponent("qrrealistic-\(getpid())")
        try? FileManager.default.removeItem(at: sample)
        run("/usr/bin/python3", [packageRoot.appendingPathComponent("tools/qrfixtures/realistic.py").path, sample.path, "realistic", "3"])
        let folder = sample.appendingPathComponent("realistic")
        let manifest = (try? String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        return manifest.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (folder.appendingPathComponent(fields[0]), bytes(hex: fields[1]), fields[2])
        }
    }()

    /// A frame made from a photo of ../shared/fixtures/realqr: the bytes it may hold (a text's in each charset
    /// that can hold it) and its category (tools/qrfixtures/realphotos.py).
    struct PhotoFrame: Sendable {
        let image: URL
        let expected: [[UInt8]]
        let category: String
    }

    /// Each real photo as one grey frame, as a webcam gives it.
    static let realPhotos: [PhotoFrame] = realPhotoSet("realqr", [])

    /// A few real photos the decoder reads upright, each turned by every multiple of 15 degrees.
    static let turnedPhotos: [PhotoFrame] = realPhotoSet("turns", ["qrcode-1/1", "qrcode-3/01", "qrcode-4/01"])

    /// The frames of a set of tools/qrfixtures/realphotos.py (`realqr`, `webcam`, `sweep`, `mosaics`), each with
    /// its manifest's category; `arguments` after the set's name.
    static func photoFrames(_ set: String, _ arguments: [String] = []) -> [(path: String, category: String)] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("qrphotos-\(set)-\(getpid())")
        try? FileManager.default.removeItem(at: out)
        run("/usr/bin/python3", [packageRoot.appendingPathComponent("tools/qrfixtures/realphotos.py").path, realPhotoFolder, out.path, set] + arguments)
        return table(out.appendingPathComponent(set)).map { ($0[0], $0[2]) }
    }

    /// The generated sets' frames: the robustness set, the bench frames, the exact-bytes codes, the realistic sample.
    static var generatedFrames: [String] {
        let folders = ["robustness", "bench", "exact"].map { directory.appendingPathComponent($0) }
        return folders.flatMap { table($0).map { $0[0] } } + realisticSample.map(\.image.path)
    }

    /// The real photos: `../shared/fixtures/realqr` beside the repository, used in place.
    static let realPhotoFolder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/realqr").path

    private static func realPhotoSet(_ set: String, _ arguments: [String]) -> [PhotoFrame] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("qrphotos-\(set)-\(getpid())")
        try? FileManager.default.removeItem(at: out)
        run("/usr/bin/python3", [packageRoot.appendingPathComponent("tools/qrfixtures/realphotos.py").path, realPhotoFolder, out.path, set] + arguments)
        return table(out.appendingPathComponent(set)).map { fields in
            PhotoFrame(image: URL(fileURLWithPath: fields[0]), expected: fields[1].split(separator: "|").map { bytes(hex: String($0)) }, category: fields[2])
        }
    }

    /// Codes whose bytes must come through unchanged (tools/qrfixtures/qrfixtures.py's `exact`): the name, the image, the bytes.
    static let exact: [String: (image: URL, expected: [UInt8])] = {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("qrexact-\(getpid())")
        try? FileManager.default.removeItem(at: out)
        run("/usr/bin/python3", [packageRoot.appendingPathComponent("tools/qrfixtures/qrfixtures.py").path, out.path, "exact"])
        var cases: [String: (image: URL, expected: [UInt8])] = [:]
        for fields in table(out.appendingPathComponent("exact")) {
            cases[fields[2]] = (URL(fileURLWithPath: fields[0]), bytes(hex: fields[1]))
        }
        return cases
    }()

    /// A manifest.tsv's rows: the file (as a path in `folder`), then the other fields.
    private static func table(_ folder: URL) -> [[String]] {
        let manifest = (try? String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        return manifest.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return [folder.appendingPathComponent(fields[0]).path] + fields.dropFirst()
        }
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        (try? runCommand(executable, arguments).status) ?? -1
    }

    /// Starts a paced writer into `path` (a FIFO): it blocks until the scanner opens the FIFO.
    static func play(_ stream: String, into path: String, framesPerSecond: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [packageRoot.appendingPathComponent("tools/qrfixtures/play.py").path, stream, path, String(framesPerSecond)]
        try process.run()
        return process
    }
}

/// The package root, found from this file's place in Tests/QRScannerTests.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A binary PGM (P5) as written by the generator.
struct GreyImage {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init?(contentsOf url: URL) {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let bytes = [UInt8](data)
        var fields: [String] = []
        var index = 0
        while fields.count < 4, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        guard fields.count == 4, fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]) else { return nil }
        self.width = width
        self.height = height
        self.pixels = Array(bytes[(index + 1)...].prefix(width * height))
        guard pixels.count == width * height else { return nil }
    }
}
