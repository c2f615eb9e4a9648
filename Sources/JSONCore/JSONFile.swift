/// A file of JSON that a person wrote (a `texts` file, a theme), read with what is wrong said so that they can mend
/// it: the line and column of a syntax error, a byte order mark, the first byte that is not UTF-8.
public enum JSONFile {
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ bytes: [UInt8]) throws(Problem) -> JSON {
        // An editor on Windows may start the file with one: JSON (RFC 8259) has none, and the file says nothing with it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw Problem(description: "it begins with a UTF-8 byte order mark (EF BB BF): save it as UTF-8 without one")
        }
        if let offset = firstInvalidUTF8(in: bytes) {
            let (line, column) = position(of: offset, in: bytes)
            let hex = String(bytes[offset], radix: 16, uppercase: true)
            throw Problem(description: "invalid UTF-8 at byte \(offset + 1) (line \(line), column \(column)): 0x\(hex.count == 1 ? "0" : "")\(hex)")
        }
        do throws(JSONParseError) {
            return try JSON.parse(utf8: bytes)
        } catch {
            let (line, column) = position(of: min(error.offset, bytes.count), in: bytes)
            throw Problem(description: "line \(line), column \(column): \(error.reason)")
        }
    }

    /// The offset of the first byte that does not begin or continue a UTF-8 sequence there; nil when all do.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The 1-based line and column (in Unicode scalars) of a byte offset into valid UTF-8 before it.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
