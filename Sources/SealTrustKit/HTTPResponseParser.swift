/// An HTTP/1.x answer as read off the connection.
struct HTTPResponse: Sendable, Equatable {
    let status: Int
    /// In the order received; names as sent.
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// The connection may carry another request: HTTP/1.1, no `Connection: close`, a framed body.
    let keepsConnection: Bool

    /// The first value of the header `name`, compared without case.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    static func == (left: HTTPResponse, right: HTTPResponse) -> Bool {
        left.status == right.status && left.body == right.body && left.keepsConnection == right.keepsConnection
            && left.headers.elementsEqual(right.headers) { $0 == $1 }
    }
}

/// Reads one answer from bytes as they arrive: status line, headers, then a body framed by `Content-Length`,
/// by chunks, or by the end of the connection. Every count has a bound, so no answer can make it grow
/// past `maximumBodyBytes` plus the head. Standard library only, so the fuzz target builds it alone.
struct HTTPResponseParser {
    enum Failure: Error, Equatable {
        /// Not HTTP, or HTTP this client does not accept; the words say where.
        case malformed(String)
        case headTooLarge
        case bodyTooLarge
        /// The connection ended before the answer did.
        case truncated(afterHead: Bool)
    }

    enum Progress: Equatable {
        case needMore
        case complete(HTTPResponse)
    }

    static let maximumHeadBytes = 65_536
    static let maximumChunkLineBytes = 4_096

    let maximumBodyBytes: Int

    private enum Framing {
        case length(Int)
        case chunked
        case untilClose
    }

    private enum Stage {
        case head
        case body(Framing)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailer
        case done
    }

    private var stage = Stage.head
    private var pending: [UInt8] = []
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var keepsConnection = false

    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Feeds the next bytes; `complete` once the answer is whole. Bytes after a complete answer are ignored
    /// and the connection is then not reused.
    mutating func consume(_ bytes: some Collection<UInt8>) throws(Failure) -> Progress {
        if case .done = stage {
            return .needMore
        }
        pending.append(contentsOf: bytes)
        var cursor = 0
        defer { pending.removeFirst(min(cursor, pending.count)) }
        while true {
            switch stage {
            case .head:
                guard let end = Self.headEnd(in: pending, from: cursor) else {
                    if pending.count - cursor > Self.maximumHeadBytes { throw .headTooLarge }
                    return .needMore
                }
                if end.lineStart - cursor > Self.maximumHeadBytes { throw .headTooLarge }
                let framing = try readHead(pending[cursor..<end.lineStart])
                cursor = end.next
                if status < 200 {
                    headers = []
                    continue
                }
                stage = .body(framing)
            case .body(.length(let length)):
                let taken = min(length - body.count, pending.count - cursor)
                body.append(contentsOf: pending[cursor..<(cursor + taken)])
                cursor += taken
                guard body.count == length else { return .needMore }
                return finished(extraBytes: pending.count > cursor)
            case .body(.chunked):
                stage = .chunkSize
            case .body(.untilClose):
                let taken = pending.count - cursor
                guard body.count + taken <= maximumBodyBytes else { throw .bodyTooLarge }
                body.append(contentsOf: pending[cursor...])
                cursor = pending.count
                return .needMore
            case .chunkSize:
                guard let line = try Self.line(in: pending, from: cursor, limit: Self.maximumChunkLineBytes) else {
                    return .needMore
                }
                let size = try Self.chunkSize(pending[cursor..<line.end])
                cursor = line.next
                if size == 0 {
                    stage = .trailer
                } else {
                    guard size <= maximumBodyBytes - body.count else { throw .bodyTooLarge }
                    stage = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let taken = min(remaining, pending.count - cursor)
                body.append(contentsOf: pending[cursor..<(cursor + taken)])
                cursor += taken
                guard taken == remaining else {
                    stage = .chunkData(remaining: remaining - taken)
                    return .needMore
                }
                stage = .chunkDataEnd
            case .chunkDataEnd:
                guard let line = try Self.line(in: pending, from: cursor, limit: 2) else { return .needMore }
                guard line.end == cursor else { throw .malformed("a chunk is longer than its size") }
                cursor = line.next
                stage = .chunkSize
            case .trailer:
                guard let line = try Self.line(in: pending, from: cursor, limit: Self.maximumChunkLineBytes) else {
                    return .needMore
                }
                cursor = line.next
                if line.end == line.start {
                    return finished(extraBytes: pending.count > cursor)
                }
            case .done:
                return .needMore
            }
        }
    }

    /// The connection ended: completes an answer framed by the close, throws for any other.
    mutating func finish() throws(Failure) -> HTTPResponse {
        switch stage {
        case .body(.untilClose):
            keepsConnection = false
            stage = .done
            return HTTPResponse(status: status, headers: headers, body: body, keepsConnection: false)
        case .head:
            throw .truncated(afterHead: false)
        default:
            throw .truncated(afterHead: true)
        }
    }

    private mutating func finished(extraBytes: Bool) -> Progress {
        stage = .done
        return .complete(HTTPResponse(status: status, headers: headers, body: body,
                                      keepsConnection: keepsConnection && !extraBytes))
    }

    /// Reads the status line and the headers; returns how the body is framed.
    private mutating func readHead(_ head: ArraySlice<UInt8>) throws(Failure) -> Framing {
        var lines = Self.lines(head)
        guard !lines.isEmpty else { throw .malformed("empty status line") }
        let statusLine = lines.removeFirst()
        let (minorVersion, code) = try Self.statusLine(statusLine)
        status = code
        headers = []
        var contentLength: Int?
        var chunked = false
        var closes = minorVersion == 0
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw .malformed("a header line without a name")
            }
            let nameBytes = line[line.startIndex..<colon]
            guard nameBytes.allSatisfy(Self.isTokenCharacter) else { throw .malformed("a header name with a forbidden character") }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
            headers.append((name, value))
            switch name.lowercased() {
            case "content-length":
                guard let length = Self.decimal(value) else { throw .malformed("Content-Length is not a number") }
                if let contentLength, contentLength != length { throw .malformed("two different Content-Length") }
                contentLength = length
            case "transfer-encoding":
                let codings = value.lowercased().split(separator: ",").map { $0.trimmingSpaces }
                guard codings.last == "chunked", codings.allSatisfy({ $0 == "chunked" || $0 == "identity" }) else {
                    throw .malformed("an unsupported Transfer-Encoding")
                }
                chunked = true
            case "connection":
                if value.lowercased().split(separator: ",").contains(where: { $0.trimmingSpaces == "close" }) {
                    closes = true
                }
            default:
                break
            }
        }
        keepsConnection = !closes
        if code < 200 || code == 204 || code == 304 {
            return .length(0)
        }
        if chunked {
            return .chunked
        }
        if let contentLength {
            guard contentLength <= maximumBodyBytes else { throw .bodyTooLarge }
            return .length(contentLength)
        }
        keepsConnection = false
        return .untilClose
    }

    private static func statusLine(_ line: ArraySlice<UInt8>) throws(Failure) -> (minorVersion: Int, status: Int) {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)), bytes[8] == UInt8(ascii: " "),
              bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1")
        else { throw .malformed("not an HTTP/1.x status line") }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              bytes.count == 12 || bytes[12] == UInt8(ascii: " ")
        else { throw .malformed("the status is not three digits") }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (100...599).contains(status), status != 101 else { throw .malformed("status \(status) is not an answer") }
        return (Int(bytes[7] - UInt8(ascii: "0")), status)
    }

    /// Where the blank line that ends the head starts, and the index after it.
    private static func headEnd(in bytes: [UInt8], from start: Int) -> (lineStart: Int, next: Int)? {
        var index = start
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") {
                return (newline + 1, next + 1)
            }
            if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") {
                return (newline + 1, next + 2)
            }
            if next >= bytes.count { return nil }
            index = next
        }
        return nil
    }

    /// One line ending in LF (a CR before it dropped), within `limit` bytes; nil until its end has arrived.
    private static func line(in bytes: [UInt8], from start: Int, limit: Int) throws(Failure) -> (start: Int, end: Int, next: Int)? {
        guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            if bytes.count - start > limit { throw .malformed("a chunk line is too long") }
            return nil
        }
        let end = newline > start && bytes[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
        if end - start > limit { throw .malformed("a chunk line is too long") }
        return (start, end, newline + 1)
    }

    private static func lines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
    }

    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        let digits = trimmed(line.prefix { $0 != UInt8(ascii: ";") })
        guard !digits.isEmpty, digits.count <= 15 else { throw .malformed("a chunk size is not a hexadecimal number") }
        var size = 0
        for digit in digits {
            guard let value = hexValue(digit) else { throw .malformed("a chunk size is not a hexadecimal number") }
            size = size * 16 + value
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// A decimal count of at most 15 digits (far above any body this client reads), nil for anything else.
    private static func decimal(_ text: String) -> Int? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

private extension Substring {
    var trimmingSpaces: Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[startIndex..<startIndex]
        }
        return self[first...last]
    }
}
