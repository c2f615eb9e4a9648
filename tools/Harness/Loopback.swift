import Foundation
import Glibc

/// A loopback TCP port nobody listens on now (bound to port 0, then released).
public func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(descriptor, pointer, length) == 0 else { return -1 }
            return getsockname(descriptor, pointer, &length)
        }
    }
    guard bound == 0 else { throw HarnessError("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on the loopback `port`.
public func loopbackPortAccepts(_ port: Int) -> Bool {
    guard let descriptor = connectToLoopback(port: port) else { return false }
    close(descriptor)
    return true
}

/// A TCP connection to the loopback `port`, or nil when nobody accepts it.
public func connectToLoopback(port: Int) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    if connected { return descriptor }
    close(descriptor)
    return nil
}

/// A listening TCP socket on a free loopback port, for the test brokers.
public func listenOnLoopback() throws -> (descriptor: Int32, port: Int) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(listener, pointer, length) == 0, Glibc.listen(listener, 16) == 0 else { return -1 }
            return getsockname(listener, pointer, &length)
        }
    }
    guard bound == 0 else {
        close(listener)
        throw HarnessError("cannot listen on loopback: \(String(cString: strerror(errno)))")
    }
    return (listener, Int(UInt16(bigEndian: address.sin_port)))
}

public func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
}

/// Checks `condition` every 20 ms until it holds; throws `failure` after `timeout`.
public func waitUntil(_ failure: @autoclosure () -> String, timeout: Duration, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessError("\(failure()) (after \(timeout))") }
        usleep(20_000)
    }
}
