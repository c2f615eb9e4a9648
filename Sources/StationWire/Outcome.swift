/// The `outcome` of a `verdict` event.
public enum Outcome: String, Sendable, Hashable, CaseIterable {
    // A chip's.
    case authentic
    case replay
    case invalidSignature = "invalid_signature"
    case mintingInProgress = "minting_in_progress"
    case neverRegistered = "never_registered"
    case unreadableLink = "unreadable_link"
    case tooManyCalls = "too_many_calls"
    /// A technical error: no verdict on the product.
    case failure
    // A printed serial's or a product reference's.
    case identified
    case notFound = "not_found"
    // Anything else.
    case notSealTrust = "not_sealtrust"
    /// A chip read while the API could not be reached, its request never written (`on-api-outage = defer`): recorded,
    /// and verified once the API answers; a late verdict follows. Neither good nor bad news about the product.
    case deferred
}
