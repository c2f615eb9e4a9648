import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one contract request: token, local limits, headers, the one retry a
/// read may get, and the mapping of every outcome to a `SealTrustError`.
final class APITransport: Sendable {
    private let configuration: SealTrustConfiguration
    private let createdReadSession = Mutex<URLSession?>(nil)
    private let spareSession = Mutex<URLSession?>(nil)
    private let limiter: RateLimiter

    /// Long enough for a restarting relay, short enough that a person waiting does not notice.
    private static let readRetryBackoff: Duration = .milliseconds(300)

    init(configuration: SealTrustConfiguration) {
        self.configuration = configuration
        limiter = RateLimiter(window: .milliseconds(Int64((configuration.rateLimitWindow * 1000).rounded())))
    }

    deinit {
        createdReadSession.withLock { $0 }?.finishTasksAndInvalidate()
        spareSession.withLock { $0 }?.invalidateAndCancel()
    }

    /// Reads share kept-alive connections. Made at the first read, not before: until then libcurl and its TLS
    /// library stay out of an idle daemon's memory, and a client that never calls never loads them.
    private var readSession: URLSession {
        createdReadSession.withLock { created in
            if let created { return created }
            let session = makeSession()
            created = session
            return session
        }
    }

    /// A session no request has used yet. Making one costs about 0.3 ms, so the next is made once a call is
    /// over rather than while a chip scan waits for its verdict.
    private func unusedSession() -> URLSession {
        spareSession.withLock { spare in
            defer { spare = nil }
            return spare
        } ?? makeSession()
    }

    private func prepareSpareSession() {
        Task.detached(priority: .utility) { [self] in
            let session = makeSession()
            let unneeded = spareSession.withLock { spare -> URLSession? in
                if spare == nil {
                    spare = session
                    return nil
                }
                return session
            }
            unneeded?.invalidateAndCancel()
        }
    }

    /// A call that is never retried gets a session of its own, used once: libcurl sends a request again on its
    /// own when a connection it kept dies under it, and for a chip URL that second send reads as a replay.
    /// A `Connection: close` header is not enough: libcurl still keeps the connection unless the server says so.
    private func makeSession() -> URLSession {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = Self.effectiveTimeout(configuration.timeout)
        sessionConfiguration.timeoutIntervalForResource = Self.effectiveTimeout(configuration.timeout)
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        return URLSession(configuration: sessionConfiguration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    /// FoundationNetworking arms its timer with the timeout truncated to whole
    /// seconds, so a sub-second timeout would fire at once: round up instead.
    private static func effectiveTimeout(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
        max(1, timeout.rounded(.up))
        #else
        timeout
        #endif
    }

    /// The base address with `pathAndQuery` appended to its path.
    func url(_ pathAndQuery: String) -> URL {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") {
            base.removeLast()
        }
        // The base is a valid URL and the appended text holds only unreserved characters,
        // percent escapes, `/`, `?`, `=` and `.`: the concatenation is a valid URL too.
        return URL(string: base + pathAndQuery)!
    }

    /// The answer's JSON on 2xx; throws a `SealTrustError` for everything else.
    func send(_ request: APIContract.Request) async throws -> JSONValue {
        var urlRequest = URLRequest(url: url(request.pathAndQuery), timeoutInterval: Self.effectiveTimeout(configuration.timeout))
        urlRequest.httpMethod = request.method
        urlRequest.setValue(APIContract.acceptHeader.value, forHTTPHeaderField: APIContract.acceptHeader.name)
        urlRequest.setValue(configuration.clientIdentifier, forHTTPHeaderField: APIContract.clientHeader)
        if !request.isRetriable {
            urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        }
        if let body = request.body {
            urlRequest.httpBody = Data(body.utf8)
            urlRequest.setValue(APIContract.contentTypeHeader.value, forHTTPHeaderField: APIContract.contentTypeHeader.name)
        }
        if request.authorization != .never {
            let token = configuration.accessTokenProvider().flatMap { $0.isEmpty ? nil : $0 }
            if let token {
                urlRequest.setValue(APIContract.bearer(token), forHTTPHeaderField: APIContract.authorizationHeader)
            } else if request.authorization == .required {
                throw SealTrustError.notAuthenticated
            }
        }

        try await limiter.admit(request.bucket)
        do {
            return try await exchange(urlRequest, bucket: request.bucket, once: !request.isRetriable)
        } catch let failure as SealTrustError where request.isRetriable && Self.isWorthRetrying(failure) {
            do {
                try await Task.sleep(for: Self.readRetryBackoff)
                try await limiter.admit(request.bucket)
            } catch {
                throw failure
            }
            return try await exchange(urlRequest, bucket: request.bucket, once: false)
        }
    }

    private static func isWorthRetrying(_ failure: SealTrustError) -> Bool {
        switch failure {
        case .transport: true
        case .api(let status, _, _, _): [502, 503, 504].contains(status)
        default: false
        }
    }

    private func exchange(_ urlRequest: URLRequest, bucket: APIContract.Bucket, once: Bool) async throws -> JSONValue {
        let data: Data
        let response: URLResponse
        do {
            if once {
                let session = unusedSession()
                defer {
                    session.finishTasksAndInvalidate()
                    prepareSpareSession()
                }
                (data, response) = try await session.data(for: urlRequest)
            } else {
                (data, response) = try await readSession.data(for: urlRequest)
            }
        } catch let failure as URLError {
            throw SealTrustError.transport(Self.describe(failure))
        } catch is CancellationError {
            throw SealTrustError.transport("cancelled")
        } catch {
            throw SealTrustError.transport(String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw SealTrustError.transport("the answer is not HTTP")
        }
        let body = try? JSONValue.parse(utf8: data)
        switch http.statusCode {
        case 200...299:
            guard let body else {
                throw SealTrustError.decoding("the answer's body is not JSON (HTTP \(http.statusCode), \(data.count) bytes)")
            }
            return body
        case 429:
            let seconds = Self.retryAfterSeconds(http) ?? APIContract.defaultRetryAfterSeconds
            await limiter.block(bucket, seconds: seconds)
            throw Self.apiError(status: 429, body: body, retryAfterSeconds: seconds)
        default:
            throw Self.apiError(status: http.statusCode, body: body, retryAfterSeconds: nil)
        }
    }

    private static func apiError(status: Int, body: JSONValue?, retryAfterSeconds: Int?) -> SealTrustError {
        let detail = APIContract.errorDetail(body)
        let code = detail?.stringValue.flatMap(MachineCode.init(detail:))?.code
        return .api(status: status, detail: detail, code: code, retryAfterSeconds: retryAfterSeconds)
    }

    /// `Retry-After` as delay seconds or as an HTTP date; nil when absent or unreadable.
    private static func retryAfterSeconds(_ response: HTTPURLResponse) -> Int? {
        guard let value = response.value(forHTTPHeaderField: APIContract.retryAfterHeader)?
            .trimmingCharacters(in: .whitespaces)
        else { return nil }
        if let seconds = Int(value), seconds >= 0 {
            return seconds
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, Int(date.timeIntervalSinceNow.rounded(.up)))
    }

    private static func describe(_ failure: URLError) -> String {
        switch failure.code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "could not connect (connection refused)"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .notConnectedToInternet: "no network"
        case .networkConnectionLost: "connection lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            "TLS failure"
        default: "URL error \(failure.code.rawValue)"
        }
    }
}
