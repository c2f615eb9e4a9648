@testable import KioskBridge
import QRScanner
import Testing

/// The certificate's QR code: drawn back from the SVG's own path, as a browser would fill it, and read by the
/// station's own decoder, it gives the URL's bytes exactly.
struct CertificateCodeTests {
    static let urls = [
        "https://api.sealtrust.io/certificate/0x6efdb2c27761ebe6ee62cb80c5f1eee0a15c1223619b8da212232cea2ec78b23.pdf",
        // Percent-escapes stay as they are, and a non-ASCII character is its UTF-8 bytes.
        "https://api.sealtrust.io/certificate/caf%C3%A9%20%2F%00-\u{E9}.pdf?lot=%E2%9C%93&n=1",
        // About 200 bytes, the longest a certificate's URL is expected to be.
        "https://api.sealtrust.io/certificate/" + String(repeating: "0123456789abcdef", count: 10) + ".pdf",
    ]

    @Test(arguments: urls) func theDrawnCodeReadsBackAsTheURL(url: String) throws {
        let svg = try #require(CertificateCode.svg(encoding: url))
        let parsed = Drawing(svg)
        let drawing = try #require(parsed, "the SVG is in the shape emitted")
        let q = CertificateCode.quietZone
        for module in drawing.darkModules {
            #expect((q..<drawing.side - q).contains(module.x) && (q..<drawing.side - q).contains(module.y), "quiet zone kept")
        }
        let scale = 4
        let plane = drawing.greyPlane(scale: scale)
        let payloads = plane.withUnsafeBufferPointer {
            QRFrameDecoder().decode(luma: $0, width: drawing.side * scale, height: drawing.side * scale)
        }
        #expect(payloads == [Array(url.utf8)])
    }

    @Test func horizontalRunsAreOneSubpathEach() throws {
        let svg = try #require(CertificateCode.svg(encoding: Self.urls[0]))
        let parsed = Drawing(svg)
        let drawing = try #require(parsed, "the SVG is in the shape emitted")
        let runs = drawing.runs.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        for (left, right) in zip(runs, runs.dropFirst()) where left.y == right.y {
            #expect(left.x + left.width < right.x, "two runs on a row are apart: \(left), \(right)")
        }
        #expect(svg.utf8.count < 12_000, "\(svg.utf8.count) bytes")
    }

    @Test func theDocumentIsSelfContained() throws {
        for url in Self.urls + ["javascript:alert('<script>')\"/><a href=x>"] {
            let svg = try #require(CertificateCode.svg(encoding: url))
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "))
            #expect(svg.hasSuffix("</svg>\n"))
            let lower = svg.lowercased()
            for reference in ["href", "url(", "<script", "<image", "<foreignobject", "<style", "javascript"] {
                #expect(!lower.contains(reference), "\(reference)")
            }
            #expect(svg.contains("shape-rendering=\"crispEdges\""))
            #expect(svg.ranges(of: "<path").count == 1, "one path")
        }
    }

    @Test func whatLibqrencodeRefusesIsNil() {
        #expect(CertificateCode.svg(encoding: "") == nil, "EINVAL")
        #expect(CertificateCode.svg(encoding: String(repeating: "a", count: 2332)) == nil, "ERANGE: over version 40-M's 2331 bytes")
        #expect(CertificateCode.svg(encoding: String(repeating: "a", count: 2331)) != nil)
    }
}

/// The SVG as emitted: its side from the viewBox and the dark runs from the path's `M x y h n v1 h-n z`
/// subpaths, parsed strictly, so that any other shape of output fails the tests rather than being misread.
private struct Drawing {
    struct Run: CustomStringConvertible {
        var x: Int, y: Int, width: Int
        var description: String { "\(width) at (\(x), \(y))" }
    }

    let side: Int
    let runs: [Run]

    var darkModules: [(x: Int, y: Int)] {
        runs.flatMap { run in (run.x..<run.x + run.width).map { (x: $0, y: run.y) } }
    }

    init?(_ svg: String) {
        guard
            let side = Self.number(in: svg, after: "viewBox=\"0 0 ", before: " "),
            svg.contains("viewBox=\"0 0 \(side) \(side)\""),
            svg.contains("<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"),
            let start = svg.firstRange(of: "<path fill=\"#000\" d=\""),
            let end = svg[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        self.side = side
        var runs: [Run] = []
        for subpath in svg[start.upperBound..<end].split(separator: "z", omittingEmptySubsequences: false).dropLast() {
            // "M<x> <y>h<n>v1h-<n>"
            guard subpath.hasPrefix("M") else { return nil }
            let parts = subpath.dropFirst().split(whereSeparator: { " hv".contains($0) }).map(String.init)
            guard
                parts.count == 5, let x = Int(parts[0]), let y = Int(parts[1]), let width = Int(parts[2]), width > 0,
                parts[3] == "1", parts[4] == "-\(width)", subpath == "M\(x) \(y)h\(width)v1h-\(width)",
                x >= 0, y >= 0, x + width <= side, y < side
            else { return nil }
            runs.append(Run(x: x, y: y, width: width))
        }
        guard svg[start.upperBound..<end].hasSuffix("z") || runs.isEmpty else { return nil }
        self.runs = runs
    }

    /// White everywhere, each dark module a `scale`×`scale` black square: a screen's pixels.
    func greyPlane(scale: Int) -> [UInt8] {
        let width = side * scale
        var plane = [UInt8](repeating: 255, count: width * width)
        for run in runs {
            for row in run.y * scale..<(run.y + 1) * scale {
                for column in run.x * scale..<(run.x + run.width) * scale {
                    plane[row * width + column] = 0
                }
            }
        }
        return plane
    }

    private static func number(in text: String, after prefix: String, before suffix: Character) -> Int? {
        guard let start = text.firstRange(of: prefix) else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: suffix) else { return nil }
        return Int(rest[..<end])
    }
}
