import Glibc
@testable import DaemonConfiguration
import Logging
import StationCore
import Synchronization

/// The input is the token file, read by StationCore's `TokenStore`. A token is handed on only from a file of UTF-8
/// with something besides white space in it, and then it is the file's bytes between the white space around them
/// (a leading byte order mark dropped), byte for byte; `presence` agrees with it (`none` for an empty file); reading
/// the file again gives the same. What is logged is one of the store's own lines naming the path, never the token.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    let descriptor = open(tokenPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(descriptor >= 0 && (size == 0 || write(descriptor, data, size) == size), "cannot write \(tokenPath)")
    close(descriptor)

    let logged = Mutex<[String]>([])
    let logger = Logger(program: "sealtrust-scand", level: .debug, environment: [:]) { line in logged.withLock { $0.append(line) } }
    let store = TokenStore(path: tokenPath, logger: logger)
    let token = store.token()

    let content = input.starts(with: [0xEF, 0xBB, 0xBF]) ? input.dropFirst(3) : input[...]
    let expected = String(validating: content, as: UTF8.self).map { $0.trimmingWhitespace() }
    check(token == (expected?.isEmpty == false ? expected : nil),
          "token \(String(describing: token?.debugDescription)) from \(Array(input)), expected \(String(describing: expected?.debugDescription))")
    if let token {
        check(!token.isEmpty && !token.first!.isWhitespace && !token.last!.isWhitespace, "white space around the token")
        let bytes = Array(token.utf8)
        check(input.indices.contains { input[$0...].starts(with: bytes) }, "the token is not the file's bytes")
    }
    let presence: TokenStore.Presence = token != nil ? .present : expected == "" ? .none : .unreadable
    check(store.presence == presence, "presence \(store.presence) for \(Array(input)), expected \(presence)")
    store.reload()
    check(store.token() == token, "the token changed on reading the same file again")

    let known = ["sealtrust-scand: warning: the token file \(tokenPath) is not UTF-8 text\n"]
    for line in logged.withLock({ $0 }) {
        check(known.contains(line), "logged \(line.debugDescription)")
    }
    return 0
}

let tokenPath: String = {
    let path = "/dev/shm/fuzz-token-\(getpid())"
    atexit { unlink(tokenPath) }
    return path
}()
