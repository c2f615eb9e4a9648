import JSONCore
import StationWire

/// A digital passport, of an item or of a model (reference).
public struct Passport: Sendable, Hashable {
    public let identifier: String?
    /// The tier actually served, which may be wider than the one asked.
    public let accessTier: String?
    public let productName: String?
    public let brand: String?
    public let gtin: String?
    /// Every field of the answer, known ones included, as raw JSON.
    public let fields: [String: JSON]

    public init(identifier: String?, accessTier: String?, productName: String?, brand: String?, gtin: String?,
                fields: [String: JSON]) {
        self.identifier = identifier
        self.accessTier = accessTier
        self.productName = productName
        self.brand = brand
        self.gtin = gtin
        self.fields = fields
    }
}
