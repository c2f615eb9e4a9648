/// Why a tool the tests or benchmarks start could not do its part; the text says what was seen.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
