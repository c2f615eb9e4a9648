import FoundationEssentials
import JSONCore
import POSIXSupport
import Synchronization

/// Sends one contract request: token, local limits, headers, the one retry a read may get, and the mapping
/// of every outcome to a `SealTrustError`. The bytes go out on the pool's connections, written once by
/// `HTTPExchange`: no HTTP library stands between a chip URL and the wire to send it again.
final class APITransport: Sendable {
    private let configuration: SealTrustConfiguration
    private let endpoint: APIEndpoint
    private let pool: ConnectionPool
    private let limiter: RateLimiter
    private let timeout: Duration
    private let lastFailureRecord = Mutex<APIFailureRecord?>(nil)

    /// Long enough for a restarting relay, short enough that a person waiting does not notice.
    private static let readRetryBackoff: Duration = .milliseconds(300)

    init(configuration: SealTrustConfiguration) {
        self.configuration = configuration
        endpoint = APIEndpoint(baseURL: configuration.baseURL)
        timeout = .milliseconds(Int64((configuration.timeout * 1000).rounded()))
        limiter = RateLimiter(window: .milliseconds(Int64((configuration.rateLimitWindow * 1000).rounded())))
        pool = ConnectionPool(
            settings: ConnectionSettings(endpoint: endpoint, proxy: configuration.proxy?.absoluteString, caBundle: configuration.caBundle),
            keepAlive: .milliseconds(Int64((configuration.keepAlive * 1000).rounded())),
            openTimeout: timeout, ready: configuration.readyConnections)
    }

    /// The last transport, decoding or server (5xx) error of a call, with its time.
    var lastFailure: APIFailureRecord? { lastFailureRecord.withLock { $0 } }

    /// The base address with `pathAndQuery` appended to its path.
    func url(_ pathAndQuery: String) -> URL {
        Self.url(pathAndQuery, base: configuration.baseURL)
    }

    static func url(_ pathAndQuery: String, base baseURL: URL) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") {
            base.removeLast()
        }
        // The base is a valid URL and the appended text holds only unreserved characters,
        // percent escapes, `/`, `?`, `=` and `.`: the concatenation is a valid URL too.
        return URL(string: base + pathAndQuery)!
    }

    /// The answer's JSON on 2xx; throws a `SealTrustError` for everything else. The call runs on a thread of its own.
    func send(_ request: APIContract.Request) async throws -> JSON {
        try await OSThread.value(name: "api-call") { deliver in self.send(request, answered: deliver) }.get()
    }

    /// The same on the calling thread, which it blocks on the network: the caller's own thread, never one of Swift's
    /// pool. `answered` runs there with the outcome before the pool opens its next connection, so that opening ahead
    /// delays no answer and whatever the caller does next needs no hand-off between threads.
    func send(_ request: APIContract.Request, answered: (Result<JSON, SealTrustError>) -> Void) {
        answered(Result { () throws(SealTrustError) -> JSON in try sendNow(request) })
        pool.replenish()
    }

    /// Nil when a connection to the API opens within `timeout` (through the proxy, TLS done); nothing is sent.
    func reachable(within timeout: Duration) -> SealTrustError? {
        do throws(TransportFailure) {
            try pool.check(timeout: timeout)
            return nil
        } catch {
            return .transport(error.beforeTheRequest)
        }
    }

    private func sendNow(_ request: APIContract.Request) throws(SealTrustError) -> JSON {
        var headers: [(name: String, value: String)] = [
            ("Host", endpoint.hostHeader),
            APIContract.acceptHeader,
            (APIContract.clientHeader, configuration.clientIdentifier),
        ]
        if request.body != nil {
            headers.append(APIContract.contentTypeHeader)
        }
        if request.authorization != .never {
            let token = configuration.accessTokenProvider().flatMap { $0.isEmpty ? nil : $0 }
            if let token {
                headers.append((APIContract.authorizationHeader, APIContract.bearer(token)))
            } else if request.authorization == .required {
                throw .notAuthenticated
            }
        }
        let bytes = HTTPRequest(method: request.method, target: endpoint.pathPrefix + request.pathAndQuery, headers: headers,
                                body: Array((request.body ?? "").utf8)).bytes

        try limiter.admit(request.bucket, for: request.purpose)
        do throws(SealTrustError) {
            return try sendWithRetry(bytes, request: request)
        } catch {
            if Self.isStationProblem(error) {
                lastFailureRecord.withLock { $0 = APIFailureRecord(at: Date(), error: error) }
            }
            throw error
        }
    }

    /// A read gets one more try, after a short back-off, when the first failed in a way that may pass.
    private func sendWithRetry(_ bytes: [UInt8], request: APIContract.Request) throws(SealTrustError) -> JSON {
        do throws(SealTrustError) {
            return try exchange(bytes, request: request, onlyOnce: !request.isRetriable)
        } catch {
            guard request.isRetriable && Self.isWorthRetrying(error) else { throw error }
            OSThread.pause(for: Self.readRetryBackoff)
            try limiter.admit(request.bucket, for: request.purpose)
            return try exchange(bytes, request: request, onlyOnce: false)
        }
    }

    private static func isWorthRetrying(_ failure: SealTrustError) -> Bool {
        switch failure {
        case .transport: true
        case .api(let status, _, _, _): [502, 503, 504].contains(status)
        default: false
        }
    }

    /// What an operator should hear about: the network, the answers' shape, the server's own errors.
    private static func isStationProblem(_ failure: SealTrustError) -> Bool {
        switch failure {
        case .transport, .decoding: true
        case .api(let status, _, _, _): status >= 500
        default: false
        }
    }

    /// One request on one connection: a fresh one when it must go `onlyOnce`, never written twice.
    private func exchange(_ bytes: [UInt8], request: APIContract.Request, onlyOnce: Bool) throws(SealTrustError) -> JSON {
        let deadline = ContinuousClock.now + timeout
        let connection: CurlConnection
        do throws(TransportFailure) {
            connection = try pool.connection(fresh: onlyOnce, deadline: deadline)
        } catch {
            throw .transport(error.beforeTheRequest)
        }
        let response = try HTTPExchange.perform(bytes, on: connection, deadline: deadline, timeout: timeout)
        if response.keepsConnection {
            pool.keep(connection)
        }
        return try answer(response, request: request)
    }

    private func answer(_ response: HTTPResponse, request: APIContract.Request) throws(SealTrustError) -> JSON {
        let parsed = Result { () throws(JSONParseError) -> JSON in
            try JSON.parse(utf8: response.body, valueLimit: APIContract.answerValueLimit)
        }
        let body = try? parsed.get()
        switch response.status {
        case 200...299:
            guard let body else {
                let why = if case .failure(let error) = parsed { ": \(error)" } else { "" }
                throw .decoding("the answer's body is not JSON (HTTP \(response.status), \(response.body.count) bytes)\(why)")
            }
            return body
        case 404 where APIContract.errorDetail(body) == nil:
            // Not the API's "not known": a misrouted relay's or a captive proxy's page. A failure the operator hears of,
            // never "not found", which would send a buyer to doubt a genuine label (sealtrust-api.md).
            throw .decoding("HTTP 404 without the API's error object ({\"detail\": ...}): \(response.body.isEmpty ? "an empty body" : "\(response.body.count) bytes of something else"), not the API's answer")
        case 429:
            let seconds = Self.retryAfterSeconds(response) ?? APIContract.defaultRetryAfterSeconds
            limiter.block(request.bucket, seconds: seconds, for: request.purpose)
            throw Self.apiError(status: 429, body: body, retryAfterSeconds: seconds)
        default:
            throw Self.apiError(status: response.status, body: body, retryAfterSeconds: nil)
        }
    }

    private static func apiError(status: Int, body: JSON?, retryAfterSeconds: Int?) -> SealTrustError {
        let detail = APIContract.errorDetail(body)
        let code = detail?.stringValue.flatMap(MachineCode.init(detail:))?.code
        return .api(status: status, detail: detail, code: code, retryAfterSeconds: retryAfterSeconds)
    }

    /// `Retry-After` as delay seconds (at most a day) or as an HTTP date; nil when absent or unreadable.
    private static func retryAfterSeconds(_ response: HTTPResponse) -> Int? {
        guard let value = response.header(APIContract.retryAfterHeader) else { return nil }
        if let seconds = Int(value), seconds >= 0 {
            return min(seconds, maximumRetryAfterSeconds)
        }
        guard let date = HTTPDate.secondsSince1970(value) else { return nil }
        let wait = (Double(date) - Date().timeIntervalSince1970).rounded(.up)
        return Int(min(max(0, wait), Double(maximumRetryAfterSeconds)))
    }

    /// A number from outside has a range: a server asking for more than a day is taken as asking for a day.
    private static let maximumRetryAfterSeconds = 86_400
}
