/// What a scanned string is: the `code` of a `scan` event, and what it `proves`.
public enum CodeKind: String, Sendable, Hashable, CaseIterable {
    case chip
    case printedSerial = "printed_serial"
    case productReference = "product_reference"
    /// Not a SealTrust code.
    case foreign

    /// What reading this code proves about the product in hand; nil for a foreign code.
    public var proves: Proof? {
        switch self {
        case .chip: .presence
        case .printedSerial: .identity
        case .productReference: .model
        case .foreign: nil
        }
    }
}

/// The `proves` of a `scan` event.
public enum Proof: String, Sendable, Hashable, CaseIterable {
    case presence, identity, model
}
