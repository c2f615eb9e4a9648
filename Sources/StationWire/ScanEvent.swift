import JSONCore

/// Something was read: the string exactly as read, and what it is.
public struct ScanEvent: Sendable, Hashable {
    public var scanID: String
    public var source: String
    public var medium: Medium
    /// The lane of the source (daemon.md, `lane`); nil: the station as a whole.
    public var lane: String?
    /// Exactly as read, byte for byte.
    public var raw: String
    public var code: CodeKind
    public var serial: String?
    public var gtin: String?
    /// The client's `id`, when the scan came from its `verify`.
    public var requestID: JSON?

    public init(scanID: String, source: String, medium: Medium, raw: String, code: CodeKind,
                serial: String? = nil, gtin: String? = nil, requestID: JSON? = nil) {
        self.scanID = scanID
        self.source = source
        self.medium = medium
        self.raw = raw
        self.code = code
        self.serial = serial
        self.gtin = gtin
        self.requestID = requestID
    }

    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("scan_id", .string(scanID)), ("source", .string(source)), ("medium", .string(medium.rawValue)),
        ]
        if let lane { fields.append(("lane", .string(lane))) }
        fields += [("raw", .string(raw)), ("code", .string(code.rawValue))]
        if let proves = code.proves { fields.append(("proves", .string(proves.rawValue))) }
        if let serial { fields.append(("serial", .string(serial))) }
        if let gtin { fields.append(("gtin", .string(gtin))) }
        if let requestID { fields.append(("request_id", requestID)) }
        return fields
    }
}
