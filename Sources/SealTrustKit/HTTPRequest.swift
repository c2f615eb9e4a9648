/// One HTTP/1.1 request as written on the connection, in a single write.
struct HTTPRequest: Sendable {
    let method: String
    /// Path and query as they go on the request line.
    let target: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    var bytes: [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers {
            head += "\(name): \(Self.withoutLineBreaks(value))\r\n"
        }
        if !body.isEmpty || method == "POST" {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// A header value never ends the header early: CR, LF and NUL are dropped, whatever a token file holds.
    private static func withoutLineBreaks(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" }))
    }
}
