/// How every connection to the API is opened: the address, the proxy, the trusted CA.
struct ConnectionSettings: Sendable, Hashable {
    let endpoint: APIEndpoint
    /// An HTTP proxy's address (`http://host:port`), reached with `CONNECT`; nil goes direct.
    let proxy: String?
    /// A PEM file of CA certificates trusted instead of the system's store; nil for the system's.
    let caFile: String?
}
