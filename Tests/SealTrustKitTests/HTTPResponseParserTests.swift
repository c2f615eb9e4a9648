@testable import SealTrustKit
import Testing

@Suite("The answer parser on bytes: framing, bounds, and any split of the input")
struct HTTPResponseParserTests {
    private static let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nTrailer: x\r\n\r\n".utf8)

    private func parse(_ pieces: [ArraySlice<UInt8>], limit: Int = 1 << 20) throws(HTTPResponseParser.Failure) -> HTTPResponse? {
        var parser = HTTPResponseParser(maximumBodyBytes: limit)
        for piece in pieces {
            if case .complete(let response) = try parser.consume(piece) {
                return response
            }
        }
        return try parser.finish()
    }

    @Test func chunkedBodyIsTheSameWhereverTheBytesAreSplit() throws {
        for split in 0...Self.chunked.count {
            let response = try parse([Self.chunked[..<split], Self.chunked[split...]])
            #expect(response?.body == Array("Wikipedia".utf8), "split at \(split)")
            #expect(response?.keepsConnection == true && response?.header("x-a") == "1")
        }
    }

    @Test func interimAnswersAreSkippedAndCloseIsHonoured() throws {
        let bytes = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8)
        let response = try parse([bytes[...]])
        #expect(response?.status == 404 && response?.body == Array("{}".utf8) && response?.keepsConnection == false)
    }

    @Test func bodyWithoutFramingEndsWithTheConnection() throws {
        let response = try parse([Array("HTTP/1.0 200 OK\r\n\r\nabc".utf8)[...]])
        #expect(response?.body == Array("abc".utf8) && response?.keepsConnection == false)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", HTTPResponseParser.Failure.bodyTooLarge),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n", .bodyTooLarge),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .malformed("two different Content-Length")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", .malformed("an unsupported Transfer-Encoding")),
        ("SSH-2.0-OpenSSH\r\n\r\n", .malformed("not an HTTP/1.x status line")),
        ("HTTP/1.1 2000 OK\r\n\r\n", .malformed("the status is not three digits")),
        ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .malformed("a header name with a forbidden character")),
    ])
    func refusals(head: String, failure: HTTPResponseParser.Failure) {
        #expect(throws: failure) { try parse([Array(head.utf8)[...]], limit: 10) }
    }

    @Test func truncationSaysWhetherTheHeadWasWhole() {
        #expect(throws: HTTPResponseParser.Failure.truncated(afterHead: false)) { try parse([Array("HTTP/1.1 200 OK\r\n".utf8)[...]]) }
        #expect(throws: HTTPResponseParser.Failure.truncated(afterHead: true)) {
            try parse([Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab".utf8)[...]])
        }
    }

    @Test func headBeyondItsBoundIsRefused() {
        let endless = Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 5000)).utf8)
        #expect(throws: HTTPResponseParser.Failure.headTooLarge) { try parse([endless[...]]) }
    }
}
