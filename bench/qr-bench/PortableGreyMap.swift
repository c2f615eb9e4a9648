import Foundation

/// A binary PGM (P5, maxval 255), the format the fixture generator writes.
struct PortableGreyMap {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        var fields: [Int] = []
        var index = 2
        guard bytes.starts(with: Array("P5".utf8)) else { return nil }
        while fields.count < 3, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
            fields.append(value)
        }
        guard fields.count == 3, fields[2] == 255, index < bytes.count else { return nil }
        width = fields[0]
        height = fields[1]
        pixels = Array(bytes[(index + 1)...].prefix(width * height))
        guard pixels.count == width * height else { return nil }
    }
}
