import JSONCore

/// The `error` object of a verdict: what went wrong with the API call, in words an operator can act on.
public struct APIErrorReport: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case invalidScanAddress = "invalid_scan_address"
        case notAuthenticated = "not_authenticated"
        case api
        case decoding
        case transport
    }

    /// Why a call never completed; only for `transport`.
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        case dns, connect, tls, timeout, proxy, reset
    }

    public var kind: Kind
    public var httpStatus: Int?
    public var code: String?
    public var cause: Cause?
    public var detail: String?

    public init(kind: Kind, httpStatus: Int? = nil, code: String? = nil, cause: Cause? = nil, detail: String? = nil) {
        self.kind = kind
        self.httpStatus = httpStatus
        self.code = code
        self.cause = cause
        self.detail = detail
    }

    public var json: JSON {
        var members: [(String, JSON)] = [("kind", .string(kind.rawValue))]
        if let httpStatus { members.append(("http_status", .int(Int64(httpStatus)))) }
        if let code { members.append(("code", .string(code))) }
        if let cause { members.append(("cause", .string(cause.rawValue))) }
        if let detail { members.append(("detail", .string(detail))) }
        return .object(members)
    }
}
