import Glibc

/// Why a tool the tests or benchmarks start could not do its part; the text says what was seen.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// A system call's failure, with errno's text.
    static func failed(_ operation: String, errno number: Int32 = errno) -> HarnessError {
        HarnessError("\(operation): \(String(cString: strerror(number)))")
    }
}
