import JSONCore

/// The five error cases of the contract, plus the local refusal of a call over its limit.
public enum SealTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link carried no usable proof; nothing was sent.
    case invalidScanAddress
    /// An authenticated call with no session token; nothing was sent.
    case notAuthenticated
    /// The API answered 4xx or 5xx. `retryAfterSeconds` is set on 429 (60 when the server gave none).
    case api(status: Int, detail: JSON?, code: String?, retryAfterSeconds: Int?)
    /// The answer did not have the expected shape.
    case decoding(String)
    /// The request never completed: DNS, connection, TLS, timeout, proxy, a broken connection.
    case transport(TransportFailure)
    /// Refused locally, nothing sent: the call would exceed its limit, or a 429's wait is not over.
    case tooManyCalls(retryAfterSeconds: Int)

    /// The contract's name of the case; nil for the local refusal, which is not one of the five.
    public var kind: String? {
        switch self {
        case .invalidScanAddress: "invalid_scan_address"
        case .notAuthenticated: "not_authenticated"
        case .api: "api"
        case .decoding: "decoding"
        case .transport: "transport"
        case .tooManyCalls: nil
        }
    }

    public var httpStatus: Int? {
        guard case .api(let status, _, _, _) = self else { return nil }
        return status
    }

    /// The machine code of an API error's detail.
    public var code: String? {
        guard case .api(_, _, let code, _) = self else { return nil }
        return code
    }

    /// What failed, in words: an API error's detail (the string itself, or compact JSON for any other value),
    /// what a decoding error found, or what broke in transport; cut to `longestDetailBytes` and marked so, since it
    /// rides into events, client queues and log lines.
    public var detailText: String? {
        switch self {
        case .api(_, let detail?, _, _): Self.bounded(detail.stringValue ?? detail.encoded())
        case .decoding(let why): Self.bounded(why)
        case .transport(let failure): Self.bounded(failure.detail)
        default: nil
        }
    }

    /// A transport failure's cause; nil for every other case.
    public var cause: TransportFailure.Cause? {
        guard case .transport(let failure) = self else { return nil }
        return failure.cause
    }

    /// The API cannot have seen the request: the connection never opened, or not one byte of the request went.
    /// Only such a call may be made again later; any other may have presented its proof.
    public var requestNeverWritten: Bool {
        guard case .transport(let failure) = self else { return false }
        return !failure.requestWritten
    }

    /// Anything thrown that is not a `SealTrustError` (a cancelled task) is a call that did not complete.
    public static func from(_ error: any Error) -> SealTrustError {
        error as? SealTrustError ?? .transport(TransportFailure(.reset, "the call was interrupted (\(error))"))
    }

    /// What of a detail goes on: enough for any message an operator can act on.
    public static let longestDetailBytes = 2_048

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > longestDetailBytes else { return text }
        var kept = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > longestDetailBytes { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "… [cut: \(text.utf8.count) bytes in all]"
    }

    /// How long the station waits: what a 429 asked for, an hour at most.
    public var retryAfterSeconds: Int? {
        switch self {
        case .api(_, _, _, let seconds): seconds.map { min($0, APIContract.longestRetryAfterSeconds) }
        case .tooManyCalls(let seconds): seconds
        default: nil
        }
    }

    /// The wait a 429 asked for when it is more than the station obeys, for the log.
    public var retryAfterRequested: Int? {
        guard case .api(_, _, _, let seconds?) = self, seconds > APIContract.longestRetryAfterSeconds else { return nil }
        return seconds
    }

    /// One line for a log: never a token or a nonce, since neither is ever part of an error.
    public var description: String {
        switch self {
        case .invalidScanAddress: "invalid scan address: the link carries no usable proof"
        case .notAuthenticated: "not authenticated: no session token"
        case .api(let status, _, _, _): "API error \(status)" + (detailText.map { ": \($0)" } ?? "")
        case .decoding(let why): "decoding: \(why)"
        case .transport(let failure): "transport: \(failure)"
        case .tooManyCalls(let seconds): "too many calls: refused locally, retry in \(seconds) s"
        }
    }
}
