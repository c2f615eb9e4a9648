/// The server's answer to a chip scan that it could check (HTTP 200).
public struct ScanVerification: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case authentic
        case invalidSignature = "invalid_signature"
    }

    public let status: Status
    public let identifier: String?
    public let productName: String?
    public let brand: String?
    public let gtin: String?
    /// Nil means nothing to say (a standard chip, a seal never activated): never a broken seal.
    public let tamperStatus: TamperStatus?
    /// The brand's choice; `inform` when the server gave none or an unknown one.
    public let tamperPolicy: TamperPolicy
    /// A theft report is open on this unit; the verdict stands, the screen must say it.
    public let theftReported: Bool
    /// City and country, only when coordinates were sent.
    public let scanArea: ScanArea?

    public init(status: Status, identifier: String? = nil, productName: String? = nil, brand: String? = nil,
                gtin: String? = nil, tamperStatus: TamperStatus? = nil, tamperPolicy: TamperPolicy = .inform,
                theftReported: Bool = false, scanArea: ScanArea? = nil) {
        self.status = status
        self.identifier = identifier
        self.productName = productName
        self.brand = brand
        self.gtin = gtin
        self.tamperStatus = tamperStatus
        self.tamperPolicy = tamperPolicy
        self.theftReported = theftReported
        self.scanArea = scanArea
    }
}

/// The Tag Tamper seal as the chip reported it.
public enum TamperStatus: String, Sendable, Hashable, CaseIterable {
    case intact
    case opened
}

/// How the brand wants an opened seal shown.
public enum TamperPolicy: String, Sendable, Hashable, CaseIterable {
    case silent
    case inform
    case degrade
}

/// Where a scan happened, at city level; never coordinates.
public struct ScanArea: Sendable, Hashable {
    public let city: String?
    public let country: String?

    public init(city: String?, country: String?) {
        self.city = city
        self.country = country
    }
}
