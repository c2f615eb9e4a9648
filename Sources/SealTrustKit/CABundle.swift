/// CA certificates the API's certificate may chain to in addition to the system's store (a private CA, a
/// TLS-inspecting proxy's): their PEM text as the caller read it, and the file it came from, named when it cannot be
/// used. libcurl is handed the text, never the path: it would open a FIFO named by mistake and wait on it for ever.
public struct CABundle: Sendable {
    public let path: String
    public let pem: [UInt8]

    public init(path: String, pem: [UInt8]) {
        self.path = path
        self.pem = pem
    }
}
