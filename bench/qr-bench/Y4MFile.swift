import Foundation

/// The frames of a YUV4MPEG2 file, luma only, as the live-camera figures read them.
struct Y4MFile {
    let width: Int
    let height: Int
    let framesPerSecond: Double
    private let data: Data
    private let chromaBytes: Int
    private var offset: Int

    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path),
              let newline = data.firstIndex(of: 0x0A) else { return nil }
        var fields: [Character: Substring] = [:]
        let header = String(decoding: data[..<newline], as: UTF8.self)
        for field in header.split(separator: " ").dropFirst() {
            fields[field.first!] = field.dropFirst()
        }
        let rate = fields["F"]?.split(separator: ":").compactMap { Double($0) } ?? []
        guard header.hasPrefix("YUV4MPEG2 "), let width = fields["W"].flatMap({ Int($0) }), let height = fields["H"].flatMap({ Int($0) }),
              rate.count == 2, rate[1] > 0 else { return nil }
        self.width = width
        self.height = height
        framesPerSecond = rate[0] / rate[1]
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        chromaBytes = switch fields["C"].map(String.init) ?? "420jpeg" {
        case let space where space.hasPrefix("mono"): 0
        case let space where space.hasPrefix("444"): 2 * width * height
        case let space where space.hasPrefix("422"): 2 * halfWidth * height
        default: 2 * halfWidth * halfHeight
        }
        self.data = data
        offset = newline + 1
    }

    /// The next frame's luma, or nil at the end of the file.
    mutating func nextLuma() -> [UInt8]? {
        guard let newline = data[offset...].firstIndex(of: 0x0A), newline + 1 + width * height <= data.count else { return nil }
        let start = newline + 1
        offset = start + width * height + chromaBytes
        return [UInt8](data[start..<(start + width * height)])
    }
}
