import JSONCore

/// The answer for one scan: exactly one per `scan`, with the same `scan_id`.
public struct VerdictEvent: Sendable, Hashable {
    /// The seal as the brand wants it shown.
    public struct Seal: Sendable, Hashable {
        public enum Status: String, Sendable, Hashable, CaseIterable { case intact, opened }
        public enum Policy: String, Sendable, Hashable, CaseIterable { case inform, degrade }

        public var status: Status
        public var policy: Policy

        public init(status: Status, policy: Policy) {
            self.status = status
            self.policy = policy
        }
    }

    public struct ScanArea: Sendable, Hashable {
        public var city: String?
        public var country: String?

        public init(city: String?, country: String?) {
            self.city = city
            self.country = country
        }
    }

    public var scanID: String
    public var source: String
    public var medium: Medium
    /// The lane of the scan's source (daemon.md, `lane`); nil: the station as a whole.
    public var lane: String?
    public var outcome: Outcome
    public var productName: String?
    public var brand: String?
    public var identifier: String?
    public var gtin: String?
    public var accessTier: String?
    public var seal: Seal?
    public var theftReported: Bool?
    public var scanArea: ScanArea?
    public var retryAfterSeconds: Int?
    public var error: APIErrorReport?
    /// The sentence a screen shows, in the configured language.
    public var message: String
    public var requestID: JSON?
    /// From the read to the verdict.
    public var latencyMilliseconds: Int64

    public init(scanID: String, source: String, medium: Medium, outcome: Outcome, message: String,
                latencyMilliseconds: Int64 = 0) {
        self.scanID = scanID
        self.source = source
        self.medium = medium
        self.outcome = outcome
        self.message = message
        self.latencyMilliseconds = latencyMilliseconds
    }

    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("scan_id", .string(scanID)), ("source", .string(source)), ("medium", .string(medium.rawValue)),
        ]
        if let lane { fields.append(("lane", .string(lane))) }
        fields.append(("outcome", .string(outcome.rawValue)))
        if let productName { fields.append(("product_name", .string(productName))) }
        if let brand { fields.append(("brand", .string(brand))) }
        if let identifier { fields.append(("identifier", .string(identifier))) }
        if let gtin { fields.append(("gtin", .string(gtin))) }
        if let accessTier { fields.append(("access_tier", .string(accessTier))) }
        if let seal {
            fields.append(("seal", .object([("status", .string(seal.status.rawValue)), ("policy", .string(seal.policy.rawValue))])))
        }
        if let theftReported { fields.append(("theft_reported", .bool(theftReported))) }
        if let scanArea {
            var area: [(String, JSON)] = []
            if let city = scanArea.city { area.append(("city", .string(city))) }
            if let country = scanArea.country { area.append(("country", .string(country))) }
            fields.append(("scan_area", .object(area)))
        }
        if let retryAfterSeconds { fields.append(("retry_after_s", .int(Int64(retryAfterSeconds)))) }
        if let error { fields.append(("error", error.json)) }
        fields.append(("message", .string(message)))
        if let requestID { fields.append(("request_id", requestID)) }
        fields.append(("latency_ms", .int(latencyMilliseconds)))
        return fields
    }
}
