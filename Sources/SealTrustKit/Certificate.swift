import JSONCore

/// The public certificate of authenticity of an item.
public struct Certificate: Sendable, Hashable {
    public let identifier: String?
    public let productName: String?
    public let brand: String?
    /// RFC 3339, as the server wrote it.
    public let issuedAt: String?
    /// An open string (`valid`, `revoked`, ...).
    public let status: String?
    public let fields: [String: JSON]

    public init(identifier: String?, productName: String?, brand: String?, issuedAt: String?, status: String?,
                fields: [String: JSON]) {
        self.identifier = identifier
        self.productName = productName
        self.brand = brand
        self.issuedAt = issuedAt
        self.status = status
        self.fields = fields
    }
}
