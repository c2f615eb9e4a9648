import Glibc

/// A failed system call, with the errno it left.
struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    let call: String
    let code: Int32

    /// Captures the current errno; call right after the failing call.
    init(_ call: String) {
        self.call = call
        self.code = errno
    }

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}
