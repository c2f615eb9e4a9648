import Glibc

/// Calls `body` with a sockaddr_un holding `pathBytes` and its length: a path with its terminating NUL, or an
/// abstract name with its leading NUL. Nil when the bytes do not fit in sun_path.
public func withUnixSocketAddress<Result>(_ pathBytes: [UInt8],
                                          _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    guard pathBytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}

/// The bytes of a file-system socket path for `withUnixSocketAddress`, terminator included.
public func socketPathBytes(_ path: String) -> [UInt8] {
    Array(path.utf8) + [0]
}
