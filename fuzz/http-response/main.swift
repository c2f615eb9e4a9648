@testable import SealTrustKit

/// The API client's answer parser (HTTPResponseParser): the first byte splits the input in two feeds, so that
/// every boundary between two reads of the connection is tried; whatever the bytes, the parser returns or
/// throws, and what it returns stays within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let split = min(Int(data[0]) * bytes.count / 255, bytes.count)
    var parser = HTTPResponseParser(maximumBodyBytes: 4096)
    do {
        for piece in [bytes[..<split], bytes[split...]] {
            if case .complete(let response) = try parser.consume(piece) {
                check(response.body.count <= 4096, "a body past its bound")
                check((200...599).contains(response.status), "a status out of range: \(response.status)")
                return 0
            }
        }
        let response = try parser.finish()
        check(response.body.count <= 4096, "a body past its bound")
    } catch {
        return 0
    }
    return 0
}
