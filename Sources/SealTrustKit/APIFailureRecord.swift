import FoundationEssentials

/// The last call that failed, for a program built on the client; the daemon's `status` keeps its own (`last_api_error`),
/// dated by its clock.
public struct APIFailureRecord: Sendable, Hashable {
    public let at: Date
    public let error: SealTrustError
}
