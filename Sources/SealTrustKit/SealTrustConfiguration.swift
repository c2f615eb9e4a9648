import FoundationEssentials
import ProductVersion

/// How a `SealTrustClient` reaches the API: the seed's four values, the brand hosts `verifyScan(url:)`
/// accepts, the rate-limit window, and the station's network (proxy, private CA, keep-alive).
public struct SealTrustConfiguration: Sendable {
    /// Scheme, host and an optional path prefix (a relay, another environment, the sandbox).
    public var baseURL: URL
    /// For connecting and reading, in seconds.
    public var timeout: TimeInterval
    /// Sent in `X-SealTrust-Client`.
    public var clientIdentifier: String
    /// A brand's own resolver domains, matched exactly (see `ScanURL.read`).
    public var extraHosts: [String]
    /// The window of the per-endpoint limits; the contract's is 60 s, tests shorten it.
    public var rateLimitWindow: TimeInterval
    /// The signed-in user's session token, or nil; asked at each call.
    public var accessTokenProvider: @Sendable () -> String?
    /// An HTTP proxy (`http://host:port`) reached with `CONNECT`; nil goes direct.
    public var proxy: URL?
    /// CA certificates trusted in addition to the system's store (a private CA); nil for the system's alone.
    public var caBundle: CABundle?
    /// Seconds a connection may idle before it is no longer used: under what servers and load balancers allow.
    public var keepAlive: TimeInterval
    /// Connections kept open with nothing sent, for the verifies that may start at once (a station's lanes): a verify
    /// that finds none ready opens its own on its path.
    public var readyConnections: Int

    public init(
        baseURL: URL = URL(string: "https://api.sealtrust.io")!,
        timeout: TimeInterval = 15,
        clientIdentifier: String = "sealtrust-sdk-linux/\(ProductVersion.current)",
        extraHosts: [String] = [],
        rateLimitWindow: TimeInterval = 60,
        accessTokenProvider: @escaping @Sendable () -> String? = { nil },
        proxy: URL? = nil,
        caBundle: CABundle? = nil,
        keepAlive: TimeInterval = 20,
        readyConnections: Int = 1
    ) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.clientIdentifier = clientIdentifier
        self.extraHosts = extraHosts
        self.rateLimitWindow = rateLimitWindow
        self.accessTokenProvider = accessTokenProvider
        self.proxy = proxy
        self.caBundle = caBundle
        self.keepAlive = keepAlive
        self.readyConnections = readyConnections
    }
}
