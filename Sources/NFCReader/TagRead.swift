/// One presentation of a tag that gave a URI.
public struct TagRead: Sendable, Equatable {
    public let reader: String
    /// Exactly as on the tag, with the NFC Forum URI prefix code expanded and nothing else changed.
    public let uri: String
    /// When pcscd reported the tag in the field, on the monitor's clock.
    public let presentedAt: ContinuousClock.Instant
    /// From the card-present event to the URI in hand.
    public let readDuration: Duration

    public init(reader: String, uri: String, presentedAt: ContinuousClock.Instant, readDuration: Duration) {
        self.reader = reader
        self.uri = uri
        self.presentedAt = presentedAt
        self.readDuration = readDuration
    }
}
