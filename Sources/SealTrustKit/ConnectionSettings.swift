/// How every connection to the API is opened: the address, the proxy, the trusted CA.
struct ConnectionSettings: Sendable {
    let endpoint: APIEndpoint
    /// An HTTP proxy's address (`http://host:port`), reached with `CONNECT`; nil goes direct.
    let proxy: String?
    /// CA certificates trusted in addition to the system's store; nil for the system's alone.
    let caBundle: CABundle?
}
