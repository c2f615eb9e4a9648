import Foundation
import TestSupport

/// A CA made at test time with openssl, a server certificate for 127.0.0.1 and localhost, one
/// for another host only (broker.example), a client certificate, and a second CA that signed nothing the broker shows.
public struct TestCertificates: Sendable {
    public let directory: String
    public var caFile: String { directory + "/ca.crt" }
    public var serverCertificate: String { directory + "/server.crt" }
    public var serverKey: String { directory + "/server.key" }
    public var clientCertificate: String { directory + "/client.crt" }
    public var clientKey: String { directory + "/client.key" }
    public var unknownCAFile: String { directory + "/other-ca.crt" }
    public var misnamedServerCertificate: String { directory + "/misnamed.crt" }
    public var misnamedServerKey: String { directory + "/misnamed.key" }

    public init(directory: String) throws {
        self.directory = directory
        let openssl = "/usr/bin/openssl"
        for ca in ["ca", "other-ca"] {
            try runTool(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                  "-keyout", "\(ca).key", "-out", "\(ca).crt", "-days", "2", "-subj", "/CN=sealtrust test \(ca)"], in: directory)
        }
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        try "subjectAltName=DNS:broker.example\n".write(toFile: directory + "/misnamed.ext", atomically: true, encoding: .utf8)
        for (name, subject, extensions) in [("server", "/CN=localhost", ["-extfile", "server.ext"]), ("client", "/CN=dock-7", []),
                                            ("misnamed", "/CN=broker.example", ["-extfile", "misnamed.ext"])] {
            try runTool(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                  "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject], in: directory)
            try runTool(openssl, ["x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                                  "-out", "\(name).crt", "-days", "2"] + extensions, in: directory)
        }
    }
}
