/// The proof a chip signed at one read: the scanned string and the two
/// signed parameters, kept exactly as read because any rewrite breaks the MAC.
public struct ChipProof: Sendable, Hashable {
    /// The whole scanned string, byte for byte; this is what `verifyScan` sends.
    public let url: String
    /// The raw `picc_data` value: never percent-decoded, never case-changed.
    public let piccData: String
    /// The raw `cmac` value: never percent-decoded, never case-changed.
    public let cmac: String
}
