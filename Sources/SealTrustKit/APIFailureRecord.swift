import FoundationEssentials

/// The last call that failed, kept for a station's status (`last_api_error`).
public struct APIFailureRecord: Sendable, Hashable {
    public let at: Date
    public let error: SealTrustError
}
