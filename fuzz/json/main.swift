import JSONCore

/// The journal's and the socket's JSON: any bytes are parsed or refused, never a crash;
/// what parses prints to text that parses back to the same print (a fixed point).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSON.parse(utf8: bytes) else { return 0 }
    let printed = value.encoded()
    guard let reparsed = try? JSON.parse(printed) else { fatalError("printed JSON does not parse: \(printed)") }
    check(reparsed.encoded() == printed, "print is not a fixed point: \(printed)")
    return 0
}
