import CQRencode

/// A certificate's `pdf_url` as a QR code in SVG, for `GET /certificate.svg`: a visitor's phone reads the
/// certificate off the kiosk's screen. libqrencode makes the symbol; this draws it.
enum CertificateCode {
    /// The 4-module light border around the symbol that ISO/IEC 18004 asks for: readers find the finder
    /// patterns by the contrast around them.
    static let quietZone = 4

    /// An SVG drawing of `text`'s UTF-8 bytes, exactly, as one QR code (byte mode, error correction level M: a
    /// URL of ~200 bytes fits version 10, and 15% of a smudged or glared screen can be lost), or nil when
    /// libqrencode fails (errno: EINVAL for empty input, ERANGE past version 40's 2331 bytes, ENOMEM).
    ///
    /// Self-contained: a white background, the dark modules as one `<path>` with each row's horizontal runs merged
    /// (a few kilobytes, where one `<rect>` a module would take tens), `crispEdges` so a scaled module does not
    /// blur into its neighbours, and no reference to anything outside. The document holds nothing but constants
    /// and numbers computed here: no byte of `text` is written into it, so nothing needs escaping.
    static func svg(encoding text: String) -> String? {
        let bytes = Array(text.utf8)
        // QRcode_encodeData encodes the bytes in 8-bit mode alone, NULs included; version 0 takes the smallest that
        // fits. Thread-safe: Debian builds libqrencode with pthreads.
        guard
            !bytes.isEmpty,
            let code = bytes.withUnsafeBufferPointer({ QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, QR_ECLEVEL_M) })
        else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        // One byte a module, row by row; bit 0 is set on a dark module (qrencode.h).
        let modules = UnsafeBufferPointer(start: data, count: width * width)
        return draw(width: width) { x, y in modules[y * width + x] & 1 != 0 }
    }

    /// The document for a `width`×`width` symbol whose dark modules `isDark` tells.
    private static func draw(width: Int, isDark: (_ x: Int, _ y: Int) -> Bool) -> String {
        let side = width + 2 * quietZone
        var path = ""
        path.reserveCapacity(width * width)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x, y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < width && isDark(x, y) { x += 1 }
                let run = x - start
                path += "M\(start + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(path)"/>\
            </svg>

            """
    }
}
