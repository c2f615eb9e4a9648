/// One connection to the server, never reused while the server runs (descriptors are).
public struct ClientID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "client \(rawValue)" }
}
