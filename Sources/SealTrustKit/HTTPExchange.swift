/// One request written once on a connection and its answer read, all before one deadline. Nothing here
/// ever writes the request again: a failure after the first byte is the caller's failure to report.
enum HTTPExchange {
    /// The largest answer body read; a larger one is a decoding error and is not read further.
    static let maximumBodyBytes = 1_048_576

    /// Blocks. The answer, or a `transport` or `decoding` error worded for an operator.
    static func perform(_ request: [UInt8], on connection: CurlConnection, deadline: ContinuousClock.Instant,
                        timeout: Duration) throws(SealTrustError) -> HTTPResponse {
        do {
            try connection.send(request, deadline: deadline)
        } catch {
            let written = error.anyByteWritten
            switch error.failure {
            case .timedOut:
                throw .transport(TransportFailure(.timeout, "the API did not take the request within \(seconds(timeout)) s",
                                                  requestWritten: written))
            case .broken(let why):
                throw .transport(TransportFailure(.reset, "the connection broke while the request was sent (\(why))",
                                                  requestWritten: written))
            }
        }
        var parser = HTTPResponseParser(maximumBodyBytes: maximumBodyBytes)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var receivedAny = false
        while true {
            let count: Int
            do {
                count = try connection.receive(into: &buffer, deadline: deadline)
            } catch {
                switch error {
                case .timedOut:
                    let what = receivedAny ? "the API's answer did not end" : "no answer from the API"
                    throw .transport(TransportFailure(.timeout, "\(what) within \(seconds(timeout)) s"))
                case .broken(let why):
                    let when = receivedAny ? "in the middle of the answer" : "before any answer"
                    throw .transport(TransportFailure(.reset, "the connection broke \(when) (\(why))"))
                }
            }
            do {
                if count == 0 {
                    return try parser.finish()
                }
                receivedAny = true
                if case .complete(let response) = try parser.consume(buffer[..<count]) {
                    return response
                }
            } catch {
                throw describe(error)
            }
        }
    }

    private static func describe(_ failure: HTTPResponseParser.Failure) -> SealTrustError {
        switch failure {
        case .truncated(afterHead: false):
            .transport(TransportFailure(.reset, "the API closed the connection before its answer's headers were complete"))
        case .truncated(afterHead: true):
            .transport(TransportFailure(.reset, "the API closed the connection in the middle of its answer's body"))
        case .bodyTooLarge:
            .decoding("the answer's body is over \(maximumBodyBytes / 1_048_576) MiB; not read further")
        case .headTooLarge:
            .decoding("the answer's headers are over \(HTTPResponseParser.maximumHeadBytes / 1024) KiB")
        case .malformed(let why):
            .decoding("the answer is not valid HTTP: \(why)")
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
