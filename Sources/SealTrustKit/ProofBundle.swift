import JSONCore

/// The proofs behind a passport: content hash, IPFS copy, anchoring on Base, credential.
public struct ProofBundle: Sendable, Hashable {
    public let dataHash: String?
    public let ipfsURI: String?
    public let anchoring: AnchoringState
    public let anchoringChain: String?
    public let anchoringTxHash: String?
    /// The verifiable credential's state, an open string.
    public let credentialState: String?
    /// Every field of the answer, as raw JSON.
    public let fields: [String: JSON]

    public init(dataHash: String?, ipfsURI: String?, anchoring: AnchoringState, anchoringChain: String?,
                anchoringTxHash: String?, credentialState: String?, fields: [String: JSON]) {
        self.dataHash = dataHash
        self.ipfsURI = ipfsURI
        self.anchoring = anchoring
        self.anchoringChain = anchoringChain
        self.anchoringTxHash = anchoringTxHash
        self.credentialState = credentialState
        self.fields = fields
    }
}

/// Anchoring on Base. `none` is the absence of information (no anchoring block,
/// or a state this client does not know): never show it as "not anchored".
public enum AnchoringState: String, Sendable, Hashable, CaseIterable {
    case anchored
    case neverAnchored = "never_anchored"
    /// The only state anchoring exists to raise: the passport changed after it was anchored.
    case modifiedAfterAnchoring = "modified_after_anchoring"
    case none
}
