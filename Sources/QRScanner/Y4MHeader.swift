/// A YUV4MPEG2 stream header: `YUV4MPEG2 W<w> H<h> F<n>:<d> [I..] [A..] [C..] [X..]`.
struct Y4MHeader: Sendable, Equatable {
    let width: Int
    let height: Int
    let rateNumerator: Int
    let rateDenominator: Int
    let colourSpace: String

    /// The largest side accepted; a larger one is a corrupt header, not a frame to allocate.
    static let maximumSide = 8_192
    /// The most bytes a frame (all its planes) may hold: the header alone must not decide our memory.
    static let maximumFrameBytes = 64 << 20
    /// A rate's terms, as Y4M writers store them (32-bit rationals): the stream clock's arithmetic stays exact.
    static let rateTerms = 1...Int(Int32.max)

    /// Parses the header line (without its newline); the error says what is wrong.
    static func parse(_ line: [UInt8]) -> Result<Y4MHeader, Y4MHeaderError> {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard fields.first == "YUV4MPEG2" else {
            return .failure(Y4MHeaderError("not a YUV4MPEG2 stream (starts with \"\(String((fields.first ?? "").prefix(16)))\")"))
        }
        var width: Int?, height: Int?, rate: (Int, Int)?
        var colourSpace = "420jpeg"
        for field in fields.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": width = Int(value)
                guard width != nil else { return .failure(Y4MHeaderError("bad width \"\(field)\"")) }
            case "H": height = Int(value)
                guard height != nil else { return .failure(Y4MHeaderError("bad height \"\(field)\"")) }
            case "F":
                let parts = value.split(separator: ":")
                guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]),
                      rateTerms.contains(numerator), rateTerms.contains(denominator) else {
                    return .failure(Y4MHeaderError("bad frame rate \"\(field)\""))
                }
                rate = (numerator, denominator)
            case "C": colourSpace = String(value)
            default: continue   // I (interlacing), A (aspect), X (extensions) do not change the Y plane
            }
        }
        guard let width, let height else { return .failure(Y4MHeaderError("missing width or height")) }
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            return .failure(Y4MHeaderError("frame size \(width)x\(height) out of range (1 to \(maximumSide))"))
        }
        guard let rate else { return .failure(Y4MHeaderError("missing frame rate")) }
        let header = Y4MHeader(width: width, height: height, rateNumerator: rate.0, rateDenominator: rate.1, colourSpace: colourSpace)
        guard let chromaBytes = header.chromaBytes else { return .failure(Y4MHeaderError("unsupported colour space C\(colourSpace)")) }
        guard header.lumaBytes + chromaBytes <= maximumFrameBytes else {
            return .failure(Y4MHeaderError("frames of \(header.lumaBytes + chromaBytes) bytes, over the \(maximumFrameBytes >> 20) MiB limit"))
        }
        return .success(header)
    }

    var lumaBytes: Int { width * height }

    /// The bytes after the Y plane in each frame (Cb, Cr, alpha); nil for a colour space not read here.
    var chromaBytes: Int? {
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        switch colourSpace {
        case "420jpeg", "420paldv", "420mpeg2", "420": return 2 * halfWidth * halfHeight
        case "422": return 2 * halfWidth * height
        case "444": return 2 * width * height
        case "444alpha": return 3 * width * height
        case "mono": return 0
        default: return nil
        }
    }

    /// The stream's own clock: frame number over frame rate; it stops at Duration's end (292 years) rather than wrap.
    func time(ofFrame number: Int) -> Duration {
        .nanoseconds(Int64(clamping: Int128(number) * Int128(rateDenominator) * 1_000_000_000 / Int128(rateNumerator)))
    }

    /// "1280x720 Y4M 25 fps C420jpeg".
    var summary: String {
        let fps = Double(rateNumerator) / Double(rateDenominator)
        let rounded = (fps * 100).rounded() / 100
        let rate = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(width)x\(height) Y4M \(rate) fps C\(colourSpace)"
    }
}

struct Y4MHeaderError: Error, Sendable, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
